import { z } from 'zod';
import { ReplyText } from './RunText.js';

/** A JSON reply, for a human node declared with a `reply` schema: an object, array, number or boolean. */
const JsonReply = z.union([z.record(z.string(), z.json()), z.array(z.json()), z.number(), z.boolean()]);

/**
 * A person's reply as the CLI (`--reply`, `--reply-json`) and the HTTP API (`POST
 * /api/runs/:id/resume`) accept it: text under the rules of {@link ReplyText} (not blank, no NUL,
 * at most 20,000 characters; trimmed), or any JSON value other than null and text for a human node
 * declared with a `reply` schema (the run checks it against that schema: `invalid_reply`).
 */
export const ReplyValue = z.unknown().transform((value, ctx): string | z.infer<typeof JsonReply> => {
  const parsed = typeof value === 'string' ? ReplyText.safeParse(value) : JsonReply.safeParse(value);
  if (parsed.success) return parsed.data;
  const message = typeof value === 'string' ? (parsed.error.issues[0]?.message ?? 'reply is not valid') : 'reply is required: the text (or, for a node with a reply schema, the JSON value) the waiting node receives';
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
});
