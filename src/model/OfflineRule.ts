import { z } from 'zod';
import type { ModelResponseFormat, ToolChoice } from './ModelClient.js';
import type { ModelMessage } from './ModelMessage.js';

/** A tool result as an offline rule sees it: the observation the agent fed back, parsed. */
export interface OfflineToolResult {
  name: string;
  ok: boolean;
  /** The tool's output when `ok`. */
  output?: unknown;
  /** What went wrong when not `ok`. */
  error?: string;
}

/** What an offline rule receives: the conversation so far and the tools exposed on this turn. */
export interface OfflineConversation {
  /** The agent asking. */
  agent: string;
  messages: readonly ModelMessage[];
  /** The text of the last user message. */
  input: string;
  /** Tool results since the last user message, oldest first. */
  toolResults: readonly OfflineToolResult[];
  /** Names of the tools exposed on this turn. */
  allowedTools: readonly string[];
  /** Model turns since the last user message (0 on the first). */
  turn: number;
  /**
   * What the agent allows on this turn: `'none'` (answer without tools), `'required'` (call at least
   * one tool), `{ name }` (call that tool) or `'auto'`. A reply against it is an error.
   */
  toolChoice: ToolChoice;
  /** Set when the agent asks for structured output: the answer must be JSON matching `schema` (reply `{ json }`). */
  responseFormat?: ModelResponseFormat;
}

/** What an offline rule answers: a reply, a JSON value (sent as its JSON text), tool calls, or nothing (use the default rule). */
export const OfflineReply = z.union([
  z.string(),
  z.object({ text: z.string() }).strict(),
  z
    .object({ json: z.unknown() })
    .strict()
    .refine((reply) => reply.json !== undefined, 'json must be a JSON value'),
  z
    .object({
      text: z.string().optional(),
      toolCalls: z
        .array(z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}) }).strict())
        .min(1),
    })
    .strict(),
  z.null(),
  z.undefined(),
]);
/** What an offline rule answers: a reply, tool calls, or nothing (use the default rule). */
export type OfflineReply = z.input<typeof OfflineReply>;

/**
 * An agent's deterministic stand-in for a model: given the conversation and the tools allowed on
 * this turn, it returns the reply or the tool calls the agent should get.
 *
 * @example
 * const offline: OfflineRule = ({ input, toolResults }) =>
 *   toolResults.length === 0 ? { toolCalls: [{ name: 'get_weather', arguments: { city: input } }] } : 'Sunny.';
 */
export type OfflineRule = (conversation: OfflineConversation) => OfflineReply;
