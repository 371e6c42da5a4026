import { z } from 'zod';

/** The `usage` block of a chat completion (OpenAI and compatible servers). */
export const UsageWire = z
  .object({
    prompt_tokens: z.number().int().nonnegative().optional(),
    completion_tokens: z.number().int().nonnegative().optional(),
    total_tokens: z.number().int().nonnegative().optional(),
  })
  .nullish();

const ToolCallWire = z.object({
  id: z.string(),
  type: z.string().optional(),
  function: z.object({ name: z.string(), arguments: z.string().nullish() }),
});

/** The parts of a non-streamed chat completion that Switchboard reads. */
export const ChatCompletionWire = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullish(),
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(ToolCallWire).nullish(),
        }),
      }),
    )
    .min(1, 'the completion has no choices'),
  usage: UsageWire,
});
/** The parts of a non-streamed chat completion that Switchboard reads. */
export type ChatCompletionWire = z.infer<typeof ChatCompletionWire>;

/** One tool-call fragment of a streamed chunk; `index` says which call it continues. */
export const ToolCallDeltaWire = z.object({
  index: z.number().int().nonnegative(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});
/** One tool-call fragment of a streamed chunk; `index` says which call it continues. */
export type ToolCallDeltaWire = z.infer<typeof ToolCallDeltaWire>;

/** The parts of a streamed chat-completion chunk that Switchboard reads. */
export const ChatCompletionChunkWire = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullish(),
        delta: z
          .object({
            content: z.string().nullish(),
            tool_calls: z.array(ToolCallDeltaWire).nullish(),
          })
          .nullish(),
      }),
    )
    .default([]),
  usage: UsageWire,
});
/** The parts of a streamed chat-completion chunk that Switchboard reads. */
export type ChatCompletionChunkWire = z.infer<typeof ChatCompletionChunkWire>;
