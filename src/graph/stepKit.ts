import type { AnyActorRef } from 'xstate';
import type { AgentResult } from './AgentNode.js';
import type { CompiledNode } from './GraphSpec.js';
import type { GraphMachineContext } from './GraphMachineContext.js';
import { nextRequest } from './nextRequest.js';
import { resolveNext, toRouteChoice } from './resolveNext.js';
import { runtimeOf } from './RunRuntime.js';
import { applyDelta } from './SharedState.js';
import type { WorkflowContext } from './WorkflowContext.js';

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

/** Writes an engine bookkeeping key to both the live map and the JSON state, outside any delta. */
export function bookkeep(ctx: WorkflowContext, state: Record<string, unknown>, key: string, value: unknown): void {
  ctx.state.setQuietly(key, value);
  state[key] = value;
}

/**
 * Applies a finished step: the node's state writes (reported as its delta), the bookkeeping keys
 * `lastResult` / `lastNodeId`, the `node.completed` event and the handoff to the next request.
 * Returns the context update.
 */
export function settleStep(args: StepArgs, nodeId: string, result: AgentResult | null, durationMs: number) {
  const { context } = args;
  const ctx = contextOf(args);
  const delta = ctx.state.takeDelta();
  applyDelta(context.state, delta);
  bookkeep(ctx, context.state, 'lastResult', result);
  bookkeep(ctx, context.state, 'lastNodeId', nodeId);
  const runtime = runtimeOf(args.self);
  if (runtime.listening) runtime.emit(context.runId, { type: 'node.completed', nodeId, step: context.steps, result, durationMs, delta });
  return { result, request: nextRequest(context.request, result), delta, durationMs, inFlight: null };
}

/**
 * {@link settleStep}, then the routing decision made right here (for nodes without an actor of
 * their own: human nodes, coordinators), kept in `context.decision` for the routing state's guards.
 */
export function settleAndRoute(args: StepArgs, node: CompiledNode, result: AgentResult | null, durationMs: number) {
  const settled = settleStep(args, node.id, result, durationMs);
  const ctx = contextOf(args);
  const decision = resolveNext(node, ctx, settled.request, settled.result);
  // Routers may write to the state; those writes are kept.
  applyDelta(args.context.state, ctx.state.takeDelta());
  const runtime = runtimeOf(args.self);
  const error = 'error' in decision ? ((runtime.error = decision.error), decision.error.toJSON()) : null;
  return { ...settled, decision: toRouteChoice(node, decision), error };
}
