import { z } from 'zod';
import { ReplyValue } from '../input/ReplyValue.js';

/**
 * `POST /api/runs/:runId/resume`: the human's reply — text, or any JSON value other than null for
 * a human node declared with a `reply` schema (the run checks it against the schema: `invalid_reply`);
 * none to let a run paused at a breakpoint go on.
 */
export const ResumeRunBody = z.strictObject({
  /** Left out, a run paused at a breakpoint goes on (a run at a human node refuses: run_not_waiting). */
  reply: ReplyValue.optional(),
});
/** `POST /api/runs/:runId/resume`. */
export type ResumeRunBody = z.infer<typeof ResumeRunBody>;
