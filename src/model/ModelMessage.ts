import { z } from 'zod';

/** A tool call as a model made it: `arguments` is the raw JSON text, parsed later by the tool's schema. */
export const ModelToolCall = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});
/** A tool call as a model made it: `arguments` is the raw JSON text, parsed later by the tool's schema. */
export type ModelToolCall = z.infer<typeof ModelToolCall>;

/** An image attached to a user message: an `https:` URL or a `data:image/…;base64,` URL. */
export const ModelImage = z.object({
  url: z.string().regex(/^(https?:|data:image\/)/, 'an image url is an http(s) URL or a data:image/…;base64, URL'),
  /** How closely a vision model should look (OpenAI's `detail`; default: the server's). */
  detail: z.enum(['low', 'high', 'auto']).optional(),
});
/** An image attached to a user message (see {@link ModelImage}). */
export type ModelImage = z.infer<typeof ModelImage>;

/** One message of a conversation, in Switchboard's provider-neutral form. */
export const ModelMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  /** `images` go to vision-capable models as image inputs beside the text. */
  z.object({ role: z.literal('user'), content: z.string(), images: z.array(ModelImage).optional() }),
  z.object({ role: z.literal('assistant'), content: z.string().nullable(), toolCalls: z.array(ModelToolCall).optional() }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), name: z.string(), content: z.string() }),
]);
/** One message of a conversation, in Switchboard's provider-neutral form. */
export type ModelMessage = z.infer<typeof ModelMessage>;

/** Token counts of one model call; a missing count means the server did not report it. */
export const ModelUsage = z.object({
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
  totalTokens: z.number().int().nonnegative().optional(),
});
/** Token counts of one model call; a missing count means the server did not report it. */
export type ModelUsage = z.infer<typeof ModelUsage>;

/** What a model answered: text, tool calls (either may be empty), usage and the raw response. */
export const ModelResponse = z.object({
  text: z.string().nullable(),
  toolCalls: z.array(ModelToolCall),
  usage: ModelUsage,
  finishReason: z.string().nullable().optional(),
  rawResponse: z.unknown().optional(),
});
/** What a model answered: text, tool calls (either may be empty), usage and the raw response. */
export type ModelResponse = z.infer<typeof ModelResponse>;
