import type { AgentRequest, AgentResult } from './AgentNode.js';
import type { CompiledNode } from './GraphSpec.js';
import type { RouteChoice, UnmatchedAnswer } from './GraphMachineContext.js';
import { END } from './END.js';
import type { WorkflowContext } from './WorkflowContext.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { describeThrown } from '../errors/SwitchboardError.js';
import { catchThenable } from './catchThenable.js';
import { describeValue } from './describeValue.js';

/**
 * The routing decision for one step: an index into the node's routes, -1 to end, or an error; with
 * the answers routers gave that their route maps did not have (each skipped its group).
 */
export type RouteDecision =
  | { entry: number; routeKey?: string; unmatched?: UnmatchedAnswer[] }
  | { entry: -2; error: WorkflowExecutionError; unmatched?: UnmatchedAnswer[] };

/** The decision as the machine's guards read it (JSON); a failure's error goes to the runtime. */
export function toRouteChoice(node: CompiledNode, decision: RouteDecision): RouteChoice {
  const unmatched = decision.unmatched === undefined ? {} : { unmatched: decision.unmatched };
  if ('error' in decision) return { entry: -2, toEnd: false, ...unmatched };
  const toEnd = decision.entry === -1 || node.routes[decision.entry]!.toKey === null;
  return decision.routeKey === undefined ? { entry: decision.entry, toEnd, ...unmatched } : { entry: decision.entry, toEnd, routeKey: decision.routeKey, ...unmatched };
}

/**
 * Picks the next hop of `node`, in the fixed priority order: conditional groups in registration
 * order (null/undefined or a route-map miss skips the group), then transitions in registration
 * order (the first without a condition or whose condition is true wins), then the end. Each router
 * and condition is called at most once, lazily, and never after a match. An answer a route map does
 * not have is kept in `unmatched` (reported as `route.unmatched`), or with `strictRoutes` fails the
 * step (`route_unmatched`).
 */
export function resolveNext(
  node: CompiledNode,
  ctx: WorkflowContext,
  request: AgentRequest,
  result: AgentResult | null,
): RouteDecision {
  let unmatched: UnmatchedAnswer[] | undefined;
  const decided = (decision: RouteDecision): RouteDecision => (unmatched === undefined ? decision : { ...decision, unmatched });
  const fail = (...args: Parameters<typeof failure>): RouteDecision => decided(failure(...args));
  for (let g = 0; g < node.groups.length; g++) {
    const group = node.groups[g]!;
    let key: unknown;
    try {
      key = group.router(ctx, request, result);
    } catch (cause) {
      return fail(node, `router #${g + 1} of node "${node.id}" threw: ${describeThrown(cause)}`, 'route_failed', cause);
    }
    if (key === null || key === undefined) continue;
    if (typeof key !== 'string') {
      // A promise is refused, and its rejection handled so it never reaches the process.
      const what = catchThenable(key) ? 'a Promise (routers must be synchronous)' : describeValue(key);
      return fail(node, `router #${g + 1} of node "${node.id}" returned ${what}; return a node id, END, a route-map key, or null to skip`, 'route_failed');
    }
    const target = group.routeMap === null ? key : group.routeMap.get(key);
    if (target === undefined) {
      if (node.strictRoutes) {
        const keys = [...group.routeMap!.keys()].map((k) => JSON.stringify(k)).join(', ');
        return fail(
          node,
          `router #${g + 1} of node "${node.id}" answered ${JSON.stringify(key)}, which its route map does not have (keys: ${keys}); map that answer, return null to skip the group on purpose, or drop strictRoutes`,
          'route_unmatched',
        );
      }
      (unmatched ??= []).push({ group: g, answer: key });
      continue;
    }
    const entry = group.entries.get(target);
    if (entry === undefined) {
      return fail(
        node,
        `node not found: ${target} (returned by router #${g + 1} of node "${node.id}"); return an id added with addNode(), END, or null to skip the group`,
        'node_not_found',
      );
    }
    return decided({ entry, routeKey: key });
  }
  for (const transition of node.transitions) {
    if (transition.condition === null) return decided({ entry: transition.entry });
    let taken: unknown;
    try {
      taken = transition.condition(ctx, request, result);
    } catch (cause) {
      const to = transition.to === END ? 'END' : `"${transition.to}"`;
      return fail(node, `condition of transition "${node.id}" → ${to} threw: ${describeThrown(cause)}`, 'route_failed', cause);
    }
    if (catchThenable(taken)) {
      return fail(node, `condition of transition "${node.id}" → "${transition.to}" returned a Promise; conditions must be synchronous`, 'route_failed');
    }
    if (taken) return decided({ entry: transition.entry });
  }
  return decided({ entry: -1 });
}

function failure(node: CompiledNode, message: string, code: 'route_failed' | 'node_not_found' | 'route_unmatched', cause?: unknown): RouteDecision {
  return { entry: -2, error: new WorkflowExecutionError(message, { code, nodeId: node.id, cause }) };
}
