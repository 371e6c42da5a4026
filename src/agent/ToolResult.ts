import { z } from 'zod';

/** The outcome of one tool call, as recorded in the run and fed back to the model. */
export const ToolResult = z.discriminatedUnion('ok', [
  z.object({ callId: z.string(), name: z.string(), ok: z.literal(true), output: z.unknown() }),
  z.object({
    callId: z.string(),
    name: z.string(),
    ok: z.literal(false),
    /** What went wrong and how the model can fix it. */
    error: z.string(),
    /** A `SwitchboardErrorCode` such as `tool_timeout` or `invalid_tool_arguments`. */
    code: z.string(),
    /** Whether calling again (with fixed arguments, later) can succeed. */
    retryable: z.boolean(),
  }),
]);
/** The outcome of one tool call, as recorded in the run and fed back to the model. */
export type ToolResult = z.infer<typeof ToolResult>;

/** The observation text the model reads for a tool result: `{ ok, output }` or `{ ok, error, retryable }`. */
export function toObservation(result: ToolResult): string {
  return result.ok
    ? JSON.stringify({ ok: true, output: result.output ?? null })
    : JSON.stringify({ ok: false, error: result.error, retryable: result.retryable });
}
