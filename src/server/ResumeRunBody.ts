import { z } from 'zod';

/** `POST /api/runs/:runId/resume`: the human's reply. */
export const ResumeRunBody = z.strictObject({
  reply: z.string({ error: 'reply is required: the text the waiting node receives' }).trim().min(1, 'reply must not be blank').max(20_000),
});
/** `POST /api/runs/:runId/resume`. */
export type ResumeRunBody = z.infer<typeof ResumeRunBody>;
