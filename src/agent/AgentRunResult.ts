import type { ToolResult } from './ToolResult.js';
import type { AgentResult } from '../graph/AgentNode.js';
import type { SerializedError } from '../errors/SwitchboardError.js';

/**
 * How an agent run ended: a final answer (`completed`), the `maxIterations` fuse
 * (`max-iterations`), an abort (`cancelled`), or a model that could not repair its tool arguments
 * or its structured output (`failed`).
 */
export type AgentRunStatus = 'completed' | 'max-iterations' | 'cancelled' | 'failed';

/** A tool call the model made during a run. */
export interface ToolCallRecord {
  id: string;
  name: string;
  /** The parsed JSON arguments, or the raw text when it was not JSON. */
  arguments: unknown;
  /** The loop iteration that made the call, 1-based. */
  iteration: number;
}

/**
 * What `session.run()` returns: an `AgentResult` (so a graph node can return it as is) with the
 * run's status, tool calls and results, summed usage and the number of model turns.
 */
export interface AgentRunResult<Out = unknown> extends AgentResult {
  agent: string;
  status: AgentRunStatus;
  /** The final answer; for other statuses the last text the model wrote, or null. */
  outputText: string | null;
  toolCalls: ToolCallRecord[];
  toolResults: ToolResult[];
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  /** Model turns taken (counted against `maxIterations`). */
  steps: number;
  /** The last model response as the model client returned it. */
  rawResponse: unknown;
  /**
   * With an `outputSchema`: the answer parsed and checked by the schema (set when `completed`);
   * `outputText` keeps the JSON text.
   */
  output?: Out;
  /** Set when `status` is `failed` or `max-iterations`. */
  error?: SerializedError;
}
