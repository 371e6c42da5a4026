import { assign, type AnyActorRef } from 'xstate';
import type { AgentRequest, AgentResult } from './AgentNode.js';
import { END } from './END.js';
import type { GraphSpec } from './GraphSpec.js';
import type { GraphMachineContext, HumanReplyEvent, NodeActorOutput } from './GraphMachineContext.js';
import type { HumanNode } from './humanNode.js';
import { resolveNext } from './resolveNext.js';
import { runtimeOf } from './RunRuntime.js';
import { applyDelta } from './SharedState.js';
import type { WorkflowContext } from './WorkflowContext.js';
import type { RunStatus } from './WorkflowRun.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { SwitchboardError, describeThrown } from '../errors/SwitchboardError.js';

interface Args {
  context: GraphMachineContext;
  event: { type: string; output?: unknown; error?: unknown };
  self: AnyActorRef;
}
type NodeParams = { nodeId: string; key: string };

/** Writes an engine bookkeeping key to both the live map and the JSON state, outside any delta. */
function bookkeep(ctx: WorkflowContext, state: Record<string, unknown>, key: string, value: unknown): void {
  ctx.state.setQuietly(key, value);
  state[key] = value;
}

/** The handoff rule: a non-null `outputText` becomes the next input; metadata is kept. */
function nextRequest(current: AgentRequest, result: AgentResult | null): AgentRequest {
  const text = result?.outputText;
  if (text === null || text === undefined) return current;
  return current.metadata === undefined ? { input: text } : { input: text, metadata: current.metadata };
}

/** Applies a finished node's result: its state writes, the bookkeeping keys and the handoff. */
function settle(args: Args, nodeId: string, result: AgentResult | null, durationMs: number) {
  const { context } = args;
  const ctx = runtimeOf(args.self).bind(context.runId, context.state);
  const delta = ctx.state.takeDelta();
  applyDelta(context.state, delta);
  bookkeep(ctx, context.state, 'lastResult', result);
  bookkeep(ctx, context.state, 'lastNodeId', nodeId);
  return { result, request: nextRequest(context.request, result), delta, durationMs, inFlight: null };
}

/**
 * The machine's actions. Assignments compute the JSON context (and run routers, which are user code
 * deciding the next hop); `emit*` actions only report, so a pure `machine.transition()` never
 * produces events.
 */
export function machineActions(spec: GraphSpec) {
  const bind = ({ context, self }: Args) => runtimeOf(self).bind(context.runId, context.state);

  return {
    enterNode: assign((args: Args, { nodeId }: NodeParams) => {
      const { context } = args;
      const ctx = bind(args);
      bookkeep(ctx, context.state, 'currentNodeId', nodeId);
      bookkeep(ctx, context.state, 'currentRequest', context.request);
      context.path.push(nodeId);
      return { steps: context.steps + 1, inFlight: nodeId, decision: null };
    }),

    completeNode: assign((args: Args, { nodeId }: NodeParams) => {
      const { context } = args;
      const { result, durationMs } = args.event.output as NodeActorOutput;
      return settle(args, nodeId, result, durationMs);
    }),

    enterWaiting: assign((args: Args, { nodeId, key }: NodeParams) => {
      const node = spec.byKey.get(key)!.node as HumanNode;
      const runtime = runtimeOf(args.self);
      let reason: string;
      try {
        reason = typeof node.reason === 'function' ? String(node.reason(bind(args), args.context.request)) : node.reason;
      } catch (error) {
        reason = `waiting for a human reply (the reason function failed: ${describeThrown(error)})`;
      }
      return { status: 'waiting' as const, waiting: { nodeId, reason, since: runtime.clock.now() } };
    }),

    completeHuman: assign((args: Args, { nodeId, key }: NodeParams) => {
      const node = spec.byKey.get(key)!.node as HumanNode;
      const reply = (args.event as unknown as HumanReplyEvent).reply;
      bind(args).put(node.replyKey, reply);
      const since = args.context.waiting?.since ?? runtimeOf(args.self).clock.now();
      return {
        ...settle(args, nodeId, { outputText: reply }, runtimeOf(args.self).clock.now() - since),
        status: 'running' as const,
        waiting: null,
      };
    }),

    decideRoute: assign((args: Args, { key }: NodeParams) => {
      const { context } = args;
      const node = spec.byKey.get(key)!;
      const ctx = bind(args);
      const decision = resolveNext(node, ctx, context.request, context.result);
      // Routers may write to the state; those writes are kept.
      applyDelta(context.state, ctx.state.takeDelta());
      if ('error' in decision) {
        runtimeOf(args.self).error = decision.error;
        return { decision: { entry: -2 as const, to: null, kind: 'error' as const }, error: decision.error.toJSON() };
      }
      if (decision.entry === -1) return { decision: { entry: -1, to: END, kind: 'end' as const } };
      const route = node.routes[decision.entry]!;
      const chosen = { entry: decision.entry, to: route.to, kind: route.kind };
      return { decision: decision.routeKey === undefined ? chosen : { ...chosen, routeKey: decision.routeKey } };
    }),

    failNode: assign((args: Args, { nodeId }: NodeParams) => {
      const thrown = args.event.error;
      const error =
        thrown instanceof SwitchboardError
          ? thrown
          : new WorkflowExecutionError(`node "${nodeId}" failed: ${describeThrown(thrown)}`, {
              code: 'node_failed',
              nodeId,
              cause: thrown,
            });
      runtimeOf(args.self).error = error;
      // Writes made before the node threw are kept, as they are in the live map.
      applyDelta(args.context.state, bind(args).state.takeDelta());
      return { error: error.toJSON(), inFlight: null };
    }),

    finish: assign((_: Args, { status }: { status: RunStatus }) => ({ status, inFlight: null, waiting: null })),

    emitRunStarted: ({ context, self }: Args) => {
      const runtime = runtimeOf(self);
      if (runtime.listening) runtime.emit(context.runId, { type: 'run.started', graph: context.graph, request: context.request });
    },

    emitNodeStarted: ({ context, self }: Args, { nodeId }: NodeParams) => {
      const runtime = runtimeOf(self);
      if (!runtime.listening) return;
      runtime.emit(context.runId, { type: 'node.started', nodeId, step: context.steps, request: context.request });
    },

    emitNodeCompleted: ({ context, self }: Args, { nodeId }: NodeParams) => {
      const runtime = runtimeOf(self);
      if (!runtime.listening) return;
      runtime.emit(context.runId, {
        type: 'node.completed',
        nodeId,
        step: context.steps,
        result: context.result,
        durationMs: context.durationMs,
        delta: context.delta,
      });
    },

    emitRunWaiting: ({ context, self }: Args) => {
      const runtime = runtimeOf(self);
      if (runtime.listening && context.waiting !== null) {
        runtime.emit(context.runId, { type: 'run.waiting', nodeId: context.waiting.nodeId, step: context.steps, reason: context.waiting.reason });
      }
    },

    emitNodeFailed: ({ context, self }: Args, { nodeId }: NodeParams) => {
      const runtime = runtimeOf(self);
      if (runtime.listening && context.error !== null) {
        runtime.emit(context.runId, { type: 'node.failed', nodeId, step: context.steps, error: context.error });
      }
    },

    emitRouteFailed: ({ context, self }: Args, { nodeId }: NodeParams) => {
      const runtime = runtimeOf(self);
      if (runtime.listening && context.error !== null) {
        runtime.emit(context.runId, { type: 'route.failed', nodeId, step: context.steps, error: context.error });
      }
    },

    emitEdge: ({ context, self }: Args, { nodeId: from, key }: NodeParams) => {
      const runtime = runtimeOf(self);
      const decision = context.decision;
      if (!runtime.listening || decision === null || decision.kind === 'error') return;
      const edge = { type: 'edge.traversed' as const, from, to: decision.to, kind: decision.kind };
      if (decision.kind === 'end') return runtime.emit(context.runId, edge);
      const route = spec.byKey.get(key)!.routes[decision.entry]!;
      runtime.emit(
        context.runId,
        decision.routeKey === undefined ? { ...edge, index: route.index } : { ...edge, index: route.index, routeKey: decision.routeKey },
      );
    },

    emitNodeCancelled: ({ context, self }: Args) => {
      const runtime = runtimeOf(self);
      if (runtime.listening && context.inFlight !== null) {
        runtime.emit(context.runId, { type: 'node.cancelled', nodeId: context.inFlight, step: context.steps });
      }
    },
  };
}
