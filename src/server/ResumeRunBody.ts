import { z } from 'zod';
import { ReplyValue } from '../input/ReplyValue.js';

/**
 * `POST /api/runs/:runId/resume`: the human's reply — text, or any JSON value other than null for
 * a human node declared with a `reply` schema (the run checks it against the schema: `invalid_reply`).
 */
export const ResumeRunBody = z.strictObject({
  reply: ReplyValue,
});
/** `POST /api/runs/:runId/resume`. */
export type ResumeRunBody = z.infer<typeof ResumeRunBody>;
