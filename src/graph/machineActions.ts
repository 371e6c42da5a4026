import { assign } from 'xstate';
import { END } from './END.js';
import type { CompiledNode, GraphSpec } from './GraphSpec.js';
import type { GraphMachineContext, HumanReplyEvent, NodeActorOutput, RouteChoice } from './GraphMachineContext.js';
import type { HumanNode } from './humanNode.js';
import { bookkeep, contextOf, nextState, settleAndRoute, settleStep, spentKeys, type StepArgs } from './stepKit.js';
import { appendPath } from './PathLog.js';
import type { RunRuntime } from './RunRuntime.js';
import { runtimeOf } from './runtimeOf.js';
import type { RunStatus } from './WorkflowRun.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { newSpanId } from '../trace/TraceContext.js';
import { catchThenable } from './catchThenable.js';
import { describeValue } from './describeValue.js';
import { SwitchboardError, describeThrown } from '../errors/SwitchboardError.js';
import { budgetRefusal } from '../errors/BudgetError.js';
import { BUDGET_EXCEEDED, exceededError, type BudgetExceeded } from '../budget/Budget.js';

type Args = StepArgs;
type NodeParams = { nodeId: string; key: string };
/** What a hop out of a node does besides moving: report an edge, a routing failure, or nothing (fuse). */
export type HopOutcome = 'edge' | 'routeFailed' | 'fuse' | 'budget';
type HopParams = NodeParams & { outcome: HopOutcome };

/** Reports the hop a routing step took (or its failure). */
function reportHop(runtime: RunRuntime, context: GraphMachineContext, node: CompiledNode, choice: RouteChoice, outcome: HopOutcome): void {
  if (!runtime.listening) return;
  // Answers a route map did not have skipped their groups; say so before the hop they led to.
  const unmatched = choice.unmatched;
  if (unmatched !== undefined) {
    for (const { group, answer } of unmatched) {
      const routeKeys = [...(node.groups[group]?.routeMap?.keys() ?? [])];
      runtime.emit(context.runId, { type: 'route.unmatched', nodeId: node.id, step: context.steps, group, answer, routeKeys });
    }
  }
  if (outcome === 'fuse' || outcome === 'budget') return;
  if (outcome === 'routeFailed') {
    const error = runtime.error?.toJSON() ?? context.error;
    if (error !== null) runtime.emit(context.runId, { type: 'route.failed', nodeId: node.id, step: context.steps, error });
    return;
  }
  if (choice.entry === -1) return runtime.emit(context.runId, { type: 'edge.traversed', from: node.id, to: END, kind: 'end' });
  const route = node.routes[choice.entry]!;
  const { to, kind, index } = route;
  const from = node.id;
  if (!runtime.tracing) return runtime.emit(context.runId, runtime.reused.edge(from, to, kind, index, choice.routeKey));
  runtime.emit(
    context.runId,
    choice.routeKey === undefined
      ? { type: 'edge.traversed', from, to, kind, index }
      : { type: 'edge.traversed', from, to, kind, index, routeKey: choice.routeKey },
  );
}

/** The last node the run executed, for a budget spent between steps. */
function readLast(context: GraphMachineContext): string {
  const last = context.state['lastNodeId'];
  return typeof last === 'string' ? last : '';
}

/**
 * The context update that stops a run for a spent budget: the budget state records it (so the
 * budgets stop checking, in this leg and any resumed one), the state shows it under
 * `BUDGET_EXCEEDED` with what was spent, and `budget.exceeded` is reported.
 */
function stopForBudget(spec: GraphSpec, args: Args, state: Record<string, unknown>, nodeId: string, exceeded: BudgetExceeded) {
  const runtime = runtimeOf(args.self);
  const meter = runtime.meter;
  meter?.stop(exceeded);
  const keys: Record<string, unknown> = meter === null ? { [BUDGET_EXCEEDED]: exceeded } : { ...spentKeys(meter), [BUDGET_EXCEEDED]: exceeded };
  const next = bookkeep(args, state, keys);
  const handler = spec.budgetNode?.id ?? null;
  if (runtime.listening) runtime.emit(args.context.runId, { type: 'budget.exceeded', nodeId, step: args.context.steps, ...exceeded, handler });
  const budget = meter === null ? (args.context.budget === null ? null : { ...args.context.budget, exceeded }) : meter.toState(exceeded);
  // Without a handler the run ends here: its error says why (stored and shown with the last output).
  return spec.budgetNode === null || spec.budgetNode === undefined ? { state: next, budget, error: exceededError(exceeded).toJSON() } : { state: next, budget };
}

/**
 * The machine's actions. Each step is two assignments: `enterNode` when a node starts and
 * `completeNode` on the transition out of it, which applies the node's state writes, the handoff
 * and the routing decision the node actor made, and reports the events. Events are emitted from
 * the assignments so they are in order even in the initial transition inside `createActor`.
 */
export function machineActions(spec: GraphSpec) {
  const bind = contextOf;
  const settle = settleStep;

  return {
    reportRunStarted: assign(({ context, self }: Args) => {
      const runtime = runtimeOf(self);
      if (runtime.listening) {
        // The seeded state and the parent of a fork make the log enough to rebuild every step (see `stateAt`).
        const seeded = Object.keys(context.state).length === 0 ? {} : { state: context.state };
        const fork = runtime.forkOf === null ? {} : { forkOf: runtime.forkOf };
        runtime.emit(context.runId, { type: 'run.started', graph: context.graph, request: context.request, ...seeded, ...fork });
      }
      return {};
    }),

    enterNode: assign((args: Args, { nodeId }: NodeParams) => {
      const { context } = args;
      const state = bookkeep(args, context.state, { currentNodeId: nodeId, currentRequest: context.request });
      const steps = context.steps + 1;
      const runtime = runtimeOf(args.self);
      // A span per step only for stamped events (the light path has no spans).
      if (runtime.tracing) runtime.nodeSpanId = newSpanId();
      // Not built when it would reach nobody (the light path learned the step's start from its edge).
      if (runtime.listening && !runtime.skipsStart(context.runId, nodeId)) {
        runtime.emit(context.runId, runtime.tracing ? { type: 'node.started', nodeId, step: steps, request: context.request } : runtime.reused.started(nodeId, steps, context.request));
      }
      return { state, path: appendPath(context.path, nodeId), steps, inFlight: nodeId, decision: null };
    }),

    completeNode: assign((args: Args, { nodeId, key, outcome }: HopParams) => {
      const { result, durationMs, endedAt, decision } = args.event.output as NodeActorOutput;
      const runtime = runtimeOf(args.self);
      // The run's handler of a spent budget has run: nothing after it calls a model (until a person replies).
      if (nodeId === spec.budgetNode?.id && !runtime.nestedMeter) runtime.meter?.lock();
      const node = spec.byKey.get(key)!;
      // A step to another node, reported to light-path listeners only: its completion and its edge in one call.
      if (outcome === 'edge' && decision.entry !== -1 && decision.unmatched === undefined && runtime.listening && runtime.stepsInOneCall) {
        const route = node.routes[decision.entry]!;
        if (route.to !== END) {
          const settled = settle(args, nodeId, result, durationMs, endedAt, false);
          runtime.emitStep(args.context.runId, nodeId, endedAt ?? runtime.clock.now(), durationMs, result, route.to, route.kind, route.index, decision.routeKey);
          return settled;
        }
      }
      const settled = settle(args, nodeId, result, durationMs, endedAt);
      reportHop(runtime, args.context, node, decision, outcome);
      if (outcome === 'budget') return { ...settled, ...stopForBudget(spec, args, settled.state, nodeId, decision.budget!) };
      return outcome === 'routeFailed' ? { ...settled, error: runtime.error?.toJSON() ?? null } : settled;
    }),

    /** A budget was found spent after a human reply or a coordinator's step (its decision is in the context). */
    stopAfterRoute: assign((args: Args, { nodeId }: NodeParams) => stopForBudget(spec, args, args.context.state, nodeId, args.context.decision!.budget!)),

    /** A model call of the node was refused because a budget is spent: the node's writes so far are kept, its result is not. */
    refuseForBudget: assign((args: Args, { nodeId }: NodeParams) => {
      const refusal = budgetRefusal(args.event.error)!;
      const { state } = nextState(args, args.context.state);
      return { ...stopForBudget(spec, args, state, nodeId, refusal.exceeded!), inFlight: null };
    }),

    /** The duration budget ran out with a node in flight: the node is abandoned (its signal aborts). */
    stopForTime: assign((args: Args) => {
      const runtime = runtimeOf(args.self);
      runtime.nodeCall?.abandon();
      const meter = runtime.meter;
      const limit = args.context.budget?.limits.maxDuration ?? 0;
      const spent = meter?.elapsed() ?? limit;
      const nodeId = args.context.inFlight ?? args.context.waiting?.nodeId ?? readLast(args.context);
      if (runtime.listening && args.context.inFlight !== null) {
        runtime.emit(args.context.runId, { type: 'node.cancelled', nodeId: args.context.inFlight, step: args.context.steps });
      }
      const { state } = nextState(args, args.context.state);
      return { ...stopForBudget(spec, args, state, nodeId, { budget: 'maxDuration', limit, spent }), inFlight: null };
    }),

    failNode: assign((args: Args, { nodeId }: NodeParams) => {
      const thrown = args.event.error;
      const error =
        thrown instanceof SwitchboardError
          ? thrown
          : new WorkflowExecutionError(`node "${nodeId}" failed: ${describeThrown(thrown)}`, { code: 'node_failed', nodeId, cause: thrown });
      const runtime = runtimeOf(args.self);
      runtime.error = error;
      // Writes made before the node threw are kept, as they are in the live map.
      const { state } = nextState(args, args.context.state);
      if (runtime.listening) {
        runtime.emit(args.context.runId, { type: 'node.failed', nodeId, step: args.context.steps, error: error.toJSON() });
      }
      const meter = runtime.meter;
      return meter === null ? { state, error: error.toJSON(), inFlight: null } : { state, error: error.toJSON(), inFlight: null, budget: meter.toState() };
    }),

    enterWaiting: assign((args: Args, { nodeId, key }: NodeParams) => {
      const node = spec.byKey.get(key)!.node as HumanNode;
      const runtime = runtimeOf(args.self);
      let reason: string;
      try {
        const given: unknown = typeof node.reason === 'function' ? node.reason(bind(args), args.context.request) : node.reason;
        if (typeof given === 'string') {
          reason = given;
        } else {
          const problem = `the reason function of node "${nodeId}" returned ${catchThenable(given) ? 'a Promise' : describeValue(given)}`;
          runtime.callbackFailed('reason', node, given, problem);
          reason = `waiting for a human reply (${problem})`;
        }
      } catch (error) {
        runtime.callbackFailed('reason', node, error);
        reason = `waiting for a human reply (the reason function failed: ${describeThrown(error)})`;
      }
      if (runtime.listening) runtime.emit(args.context.runId, { type: 'run.waiting', nodeId, step: args.context.steps, reason });
      const waiting = { status: 'waiting' as const, waiting: { nodeId, reason, since: runtime.clock.now() } };
      // The time a run waits for a person is not spent: what was spent until now is kept for the next leg.
      return runtime.meter === null ? waiting : { ...waiting, budget: runtime.meter.toState() };
    }),

    completeHuman: assign((args: Args, { nodeId, key }: NodeParams) => {
      const node = spec.byKey.get(key)!;
      const human = node.node as HumanNode;
      const reply = (args.event as unknown as HumanReplyEvent).reply;
      // The guard accepted it; what is kept is the schema's parsed value.
      const checked = human.checkReply(reply);
      const value = checked.ok ? checked.value : reply;
      const runtime = runtimeOf(args.self);
      const since = args.context.waiting?.since ?? runtime.clock.now();
      // A person replied: a budget's lock after its handler no longer holds (see BudgetState.locked).
      runtime.meter?.release();
      try {
        bind(args).put(human.replyKey, value);
      } catch (error) {
        // A reply its state key refuses (a schema the text does not match) fails the run here.
        if (!(error instanceof SwitchboardError)) throw error;
        runtime.error = error;
        const settled = settleStep(args, nodeId, human.resultOf(value), runtime.clock.now() - since);
        return { ...settled, decision: { entry: -2, toEnd: false }, error: error.toJSON(), status: 'running' as const, waiting: null };
      }
      // A human node has no actor, so its routers run here, on the reply.
      const settled = settleAndRoute(args, node, human.resultOf(value), runtime.clock.now() - since);
      return { ...settled, status: 'running' as const, waiting: null };
    }),

    reportRoute: ({ context, self }: Args, { key, outcome }: HopParams) => {
      reportHop(runtimeOf(self), context, spec.byKey.get(key)!, context.decision!, outcome);
    },

    reportNodeCancelled: ({ context, self }: Args) => {
      const runtime = runtimeOf(self);
      // A node run directly (no child actor to stop) sees its signal abort here.
      runtime.nodeCall?.abandon();
      if (runtime.listening && context.inFlight !== null) {
        runtime.emit(context.runId, { type: 'node.cancelled', nodeId: context.inFlight, step: context.steps });
      }
    },

    recordFinalStatus: assign(({ context, self }: Args, { status }: { status: RunStatus }) => {
      const meter = runtimeOf(self).meter;
      const budget = meter === null ? {} : { budget: meter.toState() };
      if (spec.io === undefined) return { status, inFlight: null, waiting: null, ...budget };
      const final = spec.io.finalStatus(context, status);
      return { status: final, error: context.error ?? spec.io.finalError?.(context, final) ?? null, inFlight: null, waiting: null, ...budget };
    }),
  };
}
