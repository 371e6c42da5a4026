import type { AgentRunResult } from './AgentRunResult.js';
import type { ToolResult } from './ToolResult.js';
import type { ModelToolCall, ModelUsage } from '../model/ModelMessage.js';

/** A model call is about to be made. */
export interface ModelRequestEvent {
  type: 'model.request';
  agent: string;
  /** The model client's name, e.g. `openai:gpt-4o-mini` or `offline`. */
  model: string;
  iteration: number;
  /** Names of the tools exposed on this turn. */
  tools: string[];
  /** How many messages the conversation has. */
  messages: number;
}

/** A piece of the model's answer text, as it streams. */
export interface ModelDeltaEvent {
  type: 'model.delta';
  agent: string;
  model: string;
  iteration: number;
  text: string;
}

/** The model answered. `usage` holds the token counts the server reported for this call. */
export interface ModelResponseEvent {
  type: 'model.response';
  agent: string;
  model: string;
  iteration: number;
  text: string | null;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  /** Why the model stopped (`stop`, `tool_calls`, `length`, …), when the server said. */
  finishReason: string | null;
  /** The model that answered and the response's id, when the server said. */
  responseModel?: string;
  responseId?: string;
}

/** A tool call is about to run. `arguments` is the parsed JSON, or the raw text when it is not JSON. */
export interface ToolCallEvent {
  type: 'tool.call';
  agent: string;
  iteration: number;
  callId: string;
  name: string;
  arguments: unknown;
}

/** A tool call finished (or failed; failures are observations too). */
export interface ToolResultEvent {
  type: 'tool.result';
  agent: string;
  iteration: number;
  result: ToolResult;
}

/** A subagent tool is handing a task off. */
export interface HandoffStartedEvent {
  type: 'handoff.started';
  agent: string;
  handoffId: string;
  tool: string;
  subagent: string;
  depth: number;
  status: 'started';
}

/** A handoff ended: `completed`, `fallback` (denied or failed, answered by the fallback), `denied` or `failed`. */
export interface HandoffCompletedEvent {
  type: 'handoff.completed';
  agent: string;
  handoffId: string;
  tool: string;
  subagent: string;
  depth: number;
  status: 'completed' | 'fallback' | 'denied' | 'failed';
  attempts: number;
  outputText?: string | null;
  error?: string;
}

/** The last event of every agent stream; it carries the result. */
export interface FinalEvent {
  type: 'final';
  agent: string;
  result: AgentRunResult;
}

/** Everything `session.stream()` yields. */
export type AgentEvent =
  | ModelRequestEvent
  | ModelDeltaEvent
  | ModelResponseEvent
  | ToolCallEvent
  | ToolResultEvent
  | HandoffStartedEvent
  | HandoffCompletedEvent
  | FinalEvent;
