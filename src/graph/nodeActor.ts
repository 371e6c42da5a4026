import { fromPromise } from 'xstate';
import type { CompiledNode } from './GraphSpec.js';
import type { GraphMachineContext, NodeActorInput, NodeActorOutput } from './GraphMachineContext.js';
import { nextRequest } from './nextRequest.js';
import { resolveNext, toRouteChoice } from './resolveNext.js';
import { nodeEmitter, runNode } from './runNode.js';
import { runtimeOf } from './RunRuntime.js';
import { WorkflowCancelledError } from '../errors/WorkflowCancelledError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';

/**
 * The XState actor that executes one node and then decides the next hop: `lastResult` and
 * `lastNodeId` are written, then the routers and conditions run on the live state, and the
 * machine's guards read the decision from the actor's output. Its input is JSON, so it is persisted while in flight.
 */
export function nodeActor(node: CompiledNode) {
  return fromPromise<NodeActorOutput, NodeActorInput>(async ({ input, signal, self }) => {
    const parent = self._parent;
    if (parent === undefined) {
      throw new WorkflowExecutionError(`node actor "${node.id}" must be invoked by its graph machine`, { code: 'internal', nodeId: node.id });
    }
    const runtime = runtimeOf(parent);
    const ctx = runtime.context ?? runtime.bind(input.runId, (parent.getSnapshot() as { context: GraphMachineContext }).context.state);
    // Checkpoints of the previous step are written before this node starts.
    await runtime.barrier();
    // The run may have stopped meanwhile (cancelled, or a checkpoint failed): the node must not run.
    if (signal.aborted) throw new WorkflowCancelledError(input.runId);
    ctx.beginStep(input.step, signal, runtime.listening ? nodeEmitter(runtime, input.runId, node.id) : null);
    const started = runtime.clock.now();
    const result = await runNode(node.node, node.id, ctx, input.request, runtime);
    const durationMs = runtime.clock.now() - started;
    // ai4j's order: the step's bookkeeping keys are written before its routers and conditions run,
    // so they see the node they route from and its result (the machine's state gets them on settle).
    ctx.state.setQuietly('lastResult', result);
    ctx.state.setQuietly('lastNodeId', node.id);
    const decision = resolveNext(node, ctx, nextRequest(input.request, result), result);
    if ('error' in decision) runtime.error = decision.error;
    return { result, durationMs, decision: toRouteChoice(node, decision) };
  });
}
