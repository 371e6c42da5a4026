import type { AgentRequest, AgentResult, GraphNode, NodeEmit, NodeEmittedEvent } from './AgentNode.js';
import type { RunRuntime } from './RunRuntime.js';
import type { WorkflowContext } from './WorkflowContext.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { describeValue } from './describeValue.js';
import { withFields } from './withFields.js';

/**
 * Executes one node: `execute` (or the function itself) in `run()`, `executeStream` in `stream()`
 * when the node has one. Events the node emits are forwarded with its id. A node that answers at
 * once (no promise) gets its result back at once: a loop of synchronous nodes makes no promise
 * per step here (each one costs, and more so while a budget's async context tracks promises).
 * A node that throws synchronously throws here; the caller awaits in an async function, so it
 * becomes the same rejection.
 */
export function runNode(
  node: GraphNode,
  nodeId: string,
  ctx: WorkflowContext,
  request: AgentRequest,
  runtime: RunRuntime,
): AgentResult | null | Promise<AgentResult | null> {
  let output: unknown;
  if (typeof node === 'function') {
    output = node(ctx, request);
  } else if (runtime.streaming && typeof node.executeStream === 'function') {
    output = node.executeStream(ctx, request, nodeEmitter(runtime, ctx.runId, nodeId));
  } else {
    output = node.execute(ctx, request);
  }
  if (output !== null && (typeof output === 'object' || typeof output === 'function') && typeof (output as { then?: unknown }).then === 'function') {
    return Promise.resolve(output).then((settled) => normalizeResult(settled, nodeId));
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
    runtime.emit(runId, withFields(event, { nodeId }));
  };
}

/** Built-in objects that are never a result (a common slip: returning a Map or an Error instead of throwing it). */
const NOT_RESULTS: ReadonlyArray<[new (...args: never[]) => object, string]> = [
  [Error, 'an Error (throw it to fail the node)'],
  [Map, 'a Map'],
  [Set, 'a Set'],
  [Date, 'a Date'],
  [RegExp, 'a RegExp'],
  [Promise, 'a Promise'],
  [ArrayBuffer, 'an ArrayBuffer'],
  [WeakMap, 'a WeakMap'],
  [WeakSet, 'a WeakSet'],
];

const TOKEN_FIELDS = ['inputTokens', 'outputTokens', 'totalTokens'] as const;

function refuse(nodeId: string, problem: string): never {
  throw new WorkflowExecutionError(`node "${nodeId}" ${problem}`, { code: 'invalid_node_result', nodeId });
}

/**
 * A string becomes `{ outputText }`, null/undefined become null, an object is checked and passes;
 * anything else is an `invalid_node_result` error. `outputText` must be a string, null or absent
 * (it becomes the next node's input), `toolCalls` an array, `usage` an object of token counts.
 */
export function normalizeResult(output: unknown, nodeId: string): AgentResult | null {
  if (output === null || output === undefined) return null;
  if (typeof output === 'string') return { outputText: output };
  const shape = '; return an AgentResult object ({ outputText?, rawResponse?, toolCalls?, usage? }), a string (the output text), null or undefined';
  if (typeof output !== 'object') {
    const value = typeof output === 'number' || typeof output === 'boolean' || typeof output === 'bigint' ? ` (${describeValue(output)})` : '';
    refuse(nodeId, `returned a ${typeof output}${value}${shape}`);
  }
  if (Array.isArray(output) || ArrayBuffer.isView(output)) refuse(nodeId, `returned ${Array.isArray(output) ? 'an array' : 'binary data'}${shape}`);
  for (const [type, name] of NOT_RESULTS) if (output instanceof type) refuse(nodeId, `returned ${name}${shape}`);
  const result = output as Record<string, unknown>;
  const text = result.outputText;
  if (text !== undefined && text !== null && typeof text !== 'string') {
    refuse(nodeId, `returned outputText ${describeValue(text)}; outputText must be a string, null or absent (a string becomes the next node's input)`);
  }
  const calls = result.toolCalls;
  if (calls !== undefined && calls !== null && !Array.isArray(calls)) refuse(nodeId, `returned toolCalls ${describeValue(calls)}; toolCalls must be an array or absent`);
  const usage = result.usage;
  if (usage !== undefined && usage !== null) {
    if (typeof usage !== 'object' || Array.isArray(usage)) refuse(nodeId, `returned usage ${describeValue(usage)}; usage must be an object of token counts or absent`);
    for (const field of TOKEN_FIELDS) {
      const count = (usage as Record<string, unknown>)[field];
      if (count !== undefined && (typeof count !== 'number' || !Number.isFinite(count) || count < 0)) {
        refuse(nodeId, `returned usage.${field} ${describeValue(count)}; token counts must be finite numbers ≥ 0`);
      }
    }
  }
  return result as AgentResult;
}
