import type { ModelMessage, ModelResponse } from './ModelMessage.js';
import type { OfflineRule } from './OfflineRule.js';

/** A tool as the model sees it: name, description and the JSON schema of its arguments. */
export interface ModelToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** Whether the model may, must or must not call tools, or which one it must call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/**
 * Asks for an answer that is JSON matching `schema` (OpenAI's `response_format: { type:
 * 'json_schema' }`). `strict` asks the server to enforce the schema exactly; the answer is checked
 * by the caller either way.
 */
export interface ModelResponseFormat {
  type: 'json_schema';
  /** Names the schema for the server: letters, digits, `_` and `-`, at most 64 characters. */
  name: string;
  /** The JSON schema of the answer. */
  schema: Record<string, unknown>;
  strict: boolean;
}

/** One call to a model. */
export interface ModelRequest {
  messages: readonly ModelMessage[];
  /** The tools exposed on this turn (empty: none). */
  tools: readonly ModelToolSpec[];
  toolChoice?: ToolChoice;
  /** Ask for a JSON answer matching a schema (structured output). */
  responseFormat?: ModelResponseFormat;
  /** Aborts the call. */
  signal?: AbortSignal;
  /** The agent making the call, for models that answer per agent (OfflineModel, ScriptedModel). */
  agent?: string;
  /** The agent's offline rule; only `OfflineModel` reads it. */
  offline?: OfflineRule;
}

/** What a streaming call yields: text deltas as they arrive, then the whole response once. */
export type ModelStreamEvent = { type: 'delta'; text: string } | { type: 'response'; response: ModelResponse };

/**
 * A chat model. `complete` answers in one piece; `stream` yields text deltas and ends with the whole
 * response (tool calls assembled). Implementations: `OpenAIChatModel`, `OfflineModel`, and
 * `ScriptedModel` from `switchboard/testing`.
 */
export interface ModelClient {
  /** A short description for errors and events, e.g. `openai:gpt-4o-mini` or `offline`. */
  readonly name: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
}
