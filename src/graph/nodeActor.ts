import { fromPromise, type AnyActorRef } from 'xstate';
import type { CompiledNode } from './GraphSpec.js';
import type { AgentResult, NodeEmit } from './AgentNode.js';
import type { GraphMachineContext, NodeActorInput, NodeActorOutput } from './GraphMachineContext.js';
import { nextRequest } from './nextRequest.js';
import { resolveNext, toRouteChoice } from './resolveNext.js';
import { nodeEmitter, runNode } from './runNode.js';
import type { RunRuntime } from './RunRuntime.js';
import { runtimeOf } from './runtimeOf.js';
import { checkBudgets } from './stepKit.js';
import { WorkflowCancelledError } from '../errors/WorkflowCancelledError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import type { StepCall } from '../steps/StepRunner.js';
import { pauseReason } from './Breakpoints.js';
import type { WorkflowContext } from './WorkflowContext.js';

/** Where a node execution gets its abort signal: read only when the node asks for it. */
export interface SignalSource {
  readonly aborted: boolean;
  readonly signal: AbortSignal;
}

/**
 * Executes one node for the graph actor `machine` and then decides the next hop: `lastResult` and
 * `lastNodeId` are written, then the routers and conditions run on the live state; the machine's
 * guards read the decision from the output. Shared by the node actor and by nodes a machine runs
 * directly (see `directNode`). The node starts once the run's pending checkpoint writes are done
 * (`runtime.barrier`), never before the current microtask ends.
 */
export function stepNode(node: CompiledNode, machine: AnyActorRef, input: NodeActorInput, abort: SignalSource): Promise<NodeActorOutput> {
  try {
    const { runtime, ctx } = stepScope(machine, input);
    return runtime.barrier().then(() => stepNodeNow(node, machine, input, abort, runtime, ctx));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The runtime and live context a step of `machine` runs with, bound before the step waits for its barrier. */
function stepScope(machine: AnyActorRef, input: NodeActorInput): { runtime: RunRuntime; ctx: WorkflowContext } {
  const runtime = runtimeOf(machine);
  const ctx = runtime.context ?? runtime.bind(input.runId, (machine.getSnapshot() as { context: GraphMachineContext }).context.state);
  return { runtime, ctx };
}

/**
 * {@link stepNode} once its barrier is passed. A node that answers at once (and no step runner) gets
 * its output back at once, not as a promise: a loop of synchronous nodes then makes one promise per
 * step (the barrier's `then`), which matters most while a budget's async context tracks every
 * promise. A synchronous failure throws.
 */
export function stepNodeNow(
  node: CompiledNode,
  machine: AnyActorRef,
  input: NodeActorInput,
  abort: SignalSource,
  runtime: RunRuntime,
  ctx: WorkflowContext,
): NodeActorOutput | Promise<NodeActorOutput> {
  // The run may have stopped meanwhile (cancelled, or a checkpoint failed): the node must not run.
  if (abort.aborted) throw new WorkflowCancelledError(input.runId);
  if (runtime.pause !== null && runtime.releasedStep !== input.step) {
    const context = (machine.getSnapshot() as { context: GraphMachineContext }).context;
    const hit = pauseReason(context.breakpoints, node.id, ctx.state.get('lastNodeId'));
    if (hit !== null) {
      // The leg stops here with this node in flight; a resume runs it (the leg's actor is stopped, so this never settles).
      runtime.pause({ nodeId: node.id, reason: hit.reason, since: runtime.clock.now(), breakpoint: hit.side });
      throw new WorkflowCancelledError(input.runId);
    }
  }
  let reporter: NodeEmit | null = null;
  if (runtime.listening) {
    // One emitter per node of the run, made at its first step.
    reporter = runtime.reporters.get(node.id) ?? null;
    if (reporter === null) runtime.reporters.set(node.id, (reporter = nodeEmitter(runtime, input.runId, node.id)));
  }
  ctx.beginStep(input.step, abort, reporter);
  const started = runtime.clock.now();
  const meter = runtime.meter;
  const runner = runtime.stepRunner;
  if (runner === null) {
    // A synchronous node's result is taken as it is: no promise to await (see runNode).
    const execute = () => runNode(node.node, node.id, ctx, input.request, runtime);
    const answer = meter === null ? execute() : meter.scope(execute);
    if (answer instanceof Promise) return answer.then((result) => decide(node, runtime, ctx, input, result, started));
    return decide(node, runtime, ctx, input, answer, started);
  }
  const execute = async () => runNode(node.node, node.id, ctx, input.request, runtime);
  return runner
    .run(stepCall(machine, node.id, input, ctx), meter === null ? execute : () => meter.scope(execute))
    .then((result) => decide(node, runtime, ctx, input, result, started));
}

/** After a node answered (`started`: the clock reading it started at): the step's bookkeeping keys, its next hop and the budgets. */
function decide(node: CompiledNode, runtime: RunRuntime, ctx: WorkflowContext, input: NodeActorInput, result: AgentResult | null, started: number): NodeActorOutput {
  const endedAt = runtime.clock.now();
  const durationMs = endedAt - started;
  // ai4j's order: the step's bookkeeping keys are written before its routers and conditions run,
  // so they see the node they route from and its result (the machine's state gets them on settle).
  ctx.state.setQuietly('lastResult', result);
  ctx.state.setQuietly('lastNodeId', node.id);
  const decision = resolveNext(node, ctx, nextRequest(input.request, result), result);
  if ('error' in decision) runtime.error = decision.error;
  const choice = toRouteChoice(node, decision);
  // The budgets are checked before every step: a spent one stops the run instead of the hop.
  const spent = checkBudgets(runtime, input.step, node.id, endedAt);
  if (spent !== null) choice.budget = spent;
  return { result, durationMs, endedAt, decision: choice };
}

/** The step as a step runner sees it. */
function stepCall(machine: AnyActorRef, nodeId: string, input: NodeActorInput, ctx: WorkflowContext): StepCall {
  const graph = (machine.getSnapshot() as { context: GraphMachineContext }).context.graph;
  return {
    runId: input.runId,
    graph,
    nodeId,
    step: input.step,
    key: `${input.step}:${nodeId}`,
    writes: () => ctx.state.peekDelta(),
    replay: (writes) => {
      if (writes === null) return;
      for (const [key, value] of Object.entries(writes.set)) ctx.state.set(key, value);
      for (const key of writes.deleted) ctx.state.delete(key);
    },
  };
}

/**
 * The XState actor that executes one node (see {@link stepNode}) for a machine that invokes it.
 * Its input is JSON, so it is persisted while in flight and re-run on restore.
 */
export function nodeActor(node: CompiledNode) {
  return fromPromise<NodeActorOutput, NodeActorInput>(({ input, signal, self }) => {
    const parent = self._parent;
    if (parent === undefined) {
      throw new WorkflowExecutionError(`node actor "${node.id}" must be invoked by its graph machine`, { code: 'internal', nodeId: node.id });
    }
    return stepNode(node, parent, input, { get aborted() { return signal.aborted; }, signal });
  });
}
