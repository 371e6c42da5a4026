import type { AnyActorRef } from 'xstate';
import type { AgentResult } from './AgentNode.js';
import type { CompiledNode } from './GraphSpec.js';
import type { GraphMachineContext } from './GraphMachineContext.js';
import { nextRequest } from './nextRequest.js';
import { resolveNext, toRouteChoice } from './resolveNext.js';
import type { RunRuntime } from './RunRuntime.js';
import { runtimeOf } from './runtimeOf.js';
import { withDelta, type StateDelta } from './SharedState.js';
import type { WorkflowContext } from './WorkflowContext.js';
import type { BudgetMeter } from '../budget/BudgetMeter.js';
import { ACCUMULATED_COST, ACCUMULATED_TOKENS, type BudgetExceeded } from '../budget/Budget.js';

/** What XState gives an action of a graph machine. */
export interface StepArgs {
  context: GraphMachineContext;
  event: { type: string; output?: unknown; error?: unknown };
  self: AnyActorRef;
}

/** The live workflow context of the machine an action runs in. */
export function contextOf({ context, self }: StepArgs): WorkflowContext {
  return runtimeOf(self).bind(context.runId, context.state);
}

/**
 * The next JSON state of a step: `state` (left as it was) with the live map's pending writes
 * (returned as the delta) and the engine's bookkeeping `keys`, which are written to the live map
 * too, outside any delta. The live map is then bound to the new object.
 */
export function nextState(
  args: StepArgs,
  state: Record<string, unknown>,
  keys: Record<string, unknown> = {},
): { state: Record<string, unknown>; delta: StateDelta | null } {
  const ctx = runtimeOf(args.self).bind(args.context.runId, state);
  const delta = ctx.state.takeDelta();
  const next = withDelta(state, delta, keys);
  for (const key of Object.keys(keys)) ctx.state.setQuietly(key, keys[key]);
  runtimeOf(args.self).adopt(next);
  return { state: next, delta };
}

/**
 * A new JSON state with the engine's bookkeeping `keys` written (also to the live map, outside any
 * delta); `state` is left as it was and pending writes stay pending.
 */
export function bookkeep(args: StepArgs, state: Record<string, unknown>, keys: Record<string, unknown>): Record<string, unknown> {
  const runtime = runtimeOf(args.self);
  const ctx = runtime.bind(args.context.runId, state);
  const next = withDelta(state, null, keys);
  for (const key of Object.keys(keys)) ctx.state.setQuietly(key, keys[key]);
  runtime.adopt(next);
  return next;
}

/**
 * Applies a finished step: the node's state writes (reported as its delta), the bookkeeping keys
 * `lastResult` / `lastNodeId`, the `node.completed` event and the handoff to the next request.
 * Returns the context update (new objects; the current context is left as it was). `report` false:
 * the caller reports the completion itself (with the edge after it, see `RunRuntime.emitStep`).
 */
export function settleStep(args: StepArgs, nodeId: string, result: AgentResult | null, durationMs: number, endedAt?: number, report = true) {
  const { context } = args;
  const runtime = runtimeOf(args.self);
  const meter = runtime.meter;
  // What was spent is written to the state only when it changed (most steps of a loop call no model).
  const changed = meter !== null && (context.state[ACCUMULATED_TOKENS] !== meter.tokens || context.state[ACCUMULATED_COST] !== meter.costUsd);
  const keys = changed ? { lastResult: result, lastNodeId: nodeId, ...spentKeys(meter) } : { lastResult: result, lastNodeId: nodeId };
  const { state, delta } = nextState(args, context.state, keys);
  // Its time is the reading that ended the node, when there is one: no second clock reading for it.
  if (report && runtime.listening) {
    const event = runtime.tracing ? { type: 'node.completed' as const, nodeId, step: context.steps, result, durationMs, delta } : runtime.reused.completed(nodeId, context.steps, result, durationMs, delta);
    runtime.emit(context.runId, event, endedAt);
  }
  const settled = { result, request: nextRequest(context.request, result), state, delta, durationMs, inFlight: null };
  // The budget state is copied into the context only when what was spent changed, not for the
  // active time alone (stored snapshots take the live state, see `persistedSnapshot`).
  return meter === null || !meter.changedSince(context.budget) ? settled : { ...settled, budget: meter.toState() };
}

/**
 * The budgets after a step (`steps`: the machine's steps so far): the first one spent, or null. A
 * sub-workflow's step counts as one more iteration of the run it belongs to. `now`: the clock reading
 * that ended the step, shared with the duration budget.
 */
export function checkBudgets(runtime: RunRuntime, steps: number, nodeId: string, now?: number): BudgetExceeded | null {
  const meter = runtime.meter;
  if (meter === null) return null;
  if (!runtime.nestedMeter) return meter.checkStep(steps, now);
  return nodeId === runtime.uncountedNode ? meter.check(meter.iterations, now) : meter.checkNestedStep(now);
}

/** The shared-state keys that show what a run with a budget has spent. */
export function spentKeys(meter: BudgetMeter): Record<string, unknown> {
  return { [ACCUMULATED_TOKENS]: meter.tokens, [ACCUMULATED_COST]: meter.costUsd };
}

/**
 * {@link settleStep}, then the routing decision made right here (for nodes without an actor of
 * their own: human nodes, coordinators), kept in `context.decision` for the routing state's guards.
 * The routers see `lastResult` and `lastNodeId` of this step.
 */
export function settleAndRoute(args: StepArgs, node: CompiledNode, result: AgentResult | null, durationMs: number) {
  const settled = settleStep(args, node.id, result, durationMs);
  const ctx = runtimeOf(args.self).bind(args.context.runId, settled.state);
  const decision = resolveNext(node, ctx, settled.request, settled.result);
  const choice = toRouteChoice(node, decision);
  const spent = checkBudgets(runtimeOf(args.self), args.context.steps, node.id);
  if (spent !== null) choice.budget = spent;
  // Routers may write to the state; those writes are kept.
  const routed = nextState(args, settled.state);
  const runtime = runtimeOf(args.self);
  const error = 'error' in decision ? ((runtime.error = decision.error), decision.error.toJSON()) : null;
  return { ...settled, state: routed.state, decision: choice, error };
}
