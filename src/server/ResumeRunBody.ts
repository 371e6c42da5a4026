import { z } from 'zod';

/**
 * `POST /api/runs/:runId/resume`: the human's reply — text, or any JSON value other than null for
 * a human node declared with a `reply` schema (the run checks it against the schema: `invalid_reply`).
 */
export const ResumeRunBody = z.strictObject({
  reply: z.union(
    [
      z.string().trim().min(1, 'reply must not be blank').max(20_000),
      z.union([z.record(z.string(), z.json()), z.array(z.json()), z.number(), z.boolean()]),
    ],
    { error: 'reply is required: the text (or, for a node with a reply schema, the JSON value) the waiting node receives' },
  ),
});
/** `POST /api/runs/:runId/resume`. */
export type ResumeRunBody = z.infer<typeof ResumeRunBody>;
