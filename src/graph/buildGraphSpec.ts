import type { GraphNode, StateCondition, StateRouter } from './AgentNode.js';
import type { CompiledGroup, CompiledNode, CompiledTransition, GraphSpec, RouteEntry } from './GraphSpec.js';
import { END } from './END.js';
import { stateKey } from './stateKey.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { isHumanNode } from './humanNode.js';
import type { StateModel } from '../state/StateModel.js';

/** The raw definition a `StateGraph` builder collects. */
export interface GraphDefinition {
  name: string;
  maxSteps: number;
  start: string | null;
  nodes: Map<string, GraphNode>;
  groups: Map<string, Array<{ router: StateRouter; routeMap: Record<string, string> | null }>>;
  transitions: Map<string, Array<{ to: string; condition: StateCondition | null }>>;
  /** What the shared state may hold. */
  state: StateModel;
  /** An answer missing from a route map fails the step (`route_unmatched`) instead of skipping its group. */
  strictRoutes: boolean;
  /** The node a run goes to when a budget is spent (null: the run ends `budget-exceeded`). */
  budgetNode?: string | null;
}

const label = (id: string): string => (id === END ? 'END' : `"${id}"`);

/**
 * Validates a definition and resolves every route target, so that nothing about the graph's
 * shape can fail at run time except a router naming an unknown node.
 */
export function buildGraphSpec(def: GraphDefinition): GraphSpec {
  if (def.start === null) {
    throw new GraphDefinitionError(`start node is required: graph "${def.name}" has no start node; call start(id) with one of its nodes`);
  }
  if (!def.nodes.has(def.start)) {
    throw new GraphDefinitionError(
      `start node not found: ${def.start} (graph "${def.name}"); add it with addNode("${def.start}", …) or start() from an existing node`,
    );
  }
  const checkEnd = (where: string, id: string, role: 'from' | 'to'): void => {
    if (role === 'to' && id === END) return;
    if (!def.nodes.has(id)) {
      const fix = role === 'to' ? `add it with addNode("${id}", …) or use END` : `add it with addNode("${id}", …) first`;
      throw new GraphDefinitionError(`${where}: node not found: ${id}; ${fix}`);
    }
  };
  for (const [from, list] of def.transitions) {
    for (const t of list) checkEnd(`transition ${label(from)} → ${label(t.to)}`, from, 'from');
    for (const t of list) checkEnd(`transition ${label(from)} → ${label(t.to)}`, t.to, 'to');
  }
  for (const [from, list] of def.groups) {
    checkEnd(`addConditionalEdges(${label(from)})`, from, 'from');
    for (const group of list) {
      for (const [key, to] of Object.entries(group.routeMap ?? {})) {
        if (typeof to !== 'string' || (to !== END && !def.nodes.has(to))) {
          throw new GraphDefinitionError(
            `addConditionalEdges(${label(from)}): route map key "${key}" points to ${typeof to === 'string' ? `unknown node "${to}"` : `a ${typeof to}`}; map every key to a node id or END`,
          );
        }
      }
    }
  }

  if (def.state.typed) {
    for (const [id, node] of def.nodes) {
      if (isHumanNode(node) && !def.state.declares(node.replyKey)) {
        throw new GraphDefinitionError(
          `human node "${id}" writes its reply to state key "${node.replyKey}", which graph "${def.name}" does not declare; add ${node.replyKey}: z.string() to its state (or set replyKey to a declared key)`,
        );
      }
    }
  }

  if (def.budgetNode !== undefined && def.budgetNode !== null && !def.nodes.has(def.budgetNode)) {
    throw new GraphDefinitionError(`onBudgetExceeded(${label(def.budgetNode)}): node not found: ${def.budgetNode}; add it with addNode("${def.budgetNode}", …) first`);
  }

  const allTargets = [...def.nodes.keys(), END];
  const keyOf = (id: string): string | null => (id === END ? null : stateKey(id));
  const nodes: CompiledNode[] = [];
  for (const [id, node] of def.nodes) {
    const routes: RouteEntry[] = [];
    const groups: CompiledGroup[] = (def.groups.get(id) ?? []).map((group, g) => {
      const routeMap = group.routeMap === null ? null : new Map(Object.entries(group.routeMap));
      const entries = new Map<string, number>();
      const targets = routeMap === null ? allTargets : [...new Set(routeMap.values())];
      for (const to of targets) {
        entries.set(to, routes.length);
        const keys = routeMap === null ? undefined : [...routeMap].filter(([, v]) => v === to).map(([k]) => k);
        const route: RouteEntry = { kind: 'conditional', index: g, to, toKey: keyOf(to) };
        routes.push(keys === undefined ? route : { ...route, keys });
      }
      return { router: group.router, routeMap, entries };
    });
    const transitions: CompiledTransition[] = [];
    for (const [t, transition] of (def.transitions.get(id) ?? []).entries()) {
      transitions.push({ to: transition.to, condition: transition.condition, entry: routes.length });
      routes.push({ kind: 'transition', index: t, to: transition.to, toKey: keyOf(transition.to) });
      // Routes after an unconditional transition can never be taken; leave them out of the machine.
      if (transition.condition === null) break;
    }
    nodes.push({ id, key: stateKey(id), node, groups, transitions, routes, strictRoutes: def.strictRoutes });
  }
  const byKey = new Map(nodes.map((n) => [n.key, n]));
  const start = byKey.get(stateKey(def.start)) ?? null;
  const budgetNode = def.budgetNode === undefined || def.budgetNode === null ? null : (byKey.get(stateKey(def.budgetNode)) ?? null);
  return { name: def.name, kind: 'graph', start, nodes, byKey, maxSteps: def.maxSteps, fused: true, state: def.state, budgetNode };
}
