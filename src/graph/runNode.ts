import type { AgentRequest, AgentResult, GraphNode, NodeEmit, NodeEmittedEvent } from './AgentNode.js';
import type { RunRuntime } from './RunRuntime.js';
import type { WorkflowContext } from './WorkflowContext.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';

/**
 * Executes one node: `execute` (or the function itself) in `run()`, `executeStream` in `stream()`
 * when the node has one. Events the node emits are forwarded with its id.
 */
export async function runNode(
  node: GraphNode,
  nodeId: string,
  ctx: WorkflowContext,
  request: AgentRequest,
  runtime: RunRuntime,
): Promise<AgentResult | null> {
  let output: unknown;
  if (typeof node === 'function') {
    output = await node(ctx, request);
  } else if (runtime.streaming && typeof node.executeStream === 'function') {
    output = await node.executeStream(ctx, request, nodeEmitter(runtime, ctx.runId, nodeId));
  } else {
    output = await node.execute(ctx, request);
  }
  return normalizeResult(output, nodeId);
}

/** Forwards a node's own events into its run's stream with the node id; rejects anything but an object with a `type`. */
export function nodeEmitter(runtime: RunRuntime, runId: string, nodeId: string): NodeEmit {
  return (event: NodeEmittedEvent) => {
    if (event === null || typeof event !== 'object' || typeof event.type !== 'string') {
      throw new WorkflowExecutionError(`node "${nodeId}" emitted ${event === null ? 'null' : typeof event}; emit objects with a string "type"`, {
        code: 'invalid_node_result',
        nodeId,
      });
    }
    runtime.emit(runId, { ...event, nodeId });
  };
}

/** A string becomes `{ outputText }`, null/undefined become null, objects pass; anything else is an error. */
export function normalizeResult(output: unknown, nodeId: string): AgentResult | null {
  if (output === null || output === undefined) return null;
  if (typeof output === 'string') return { outputText: output };
  if (typeof output === 'object' && !Array.isArray(output)) return output as AgentResult;
  const received = Array.isArray(output) ? 'an array' : `a ${typeof output}`;
  throw new WorkflowExecutionError(
    `node "${nodeId}" returned ${received}; return an AgentResult object, a string (the output text), null or undefined`,
    { code: 'invalid_node_result', nodeId },
  );
}
