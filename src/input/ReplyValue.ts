import { z } from 'zod';
import { ReplyText } from './RunText.js';
import { nestsDeeperThan } from './nestsDeeperThan.js';

/** A JSON reply, for a human node declared with a `reply` schema: an object, array, number or boolean. */
const JsonReply = z.union([z.record(z.string(), z.json()), z.array(z.json()), z.number(), z.boolean()]);

/**
 * How deeply a JSON reply may nest objects and arrays. A run keeps its reply in its snapshot, which
 * holds at most 1,000 levels with its own; this leaves room for them and for reply schemas, which
 * zod checks by recursion (thousands of levels overflow its stack).
 */
const MAX_REPLY_DEPTH = 500;

/**
 * A person's reply as the CLI (`--reply`, `--reply-json`) and the HTTP API (`POST
 * /api/runs/:id/resume`) accept it: text under the rules of {@link ReplyText} (not blank, no NUL,
 * at most 20,000 characters; trimmed), or any JSON value other than null and text for a human node
 * declared with a `reply` schema (the run checks it against that schema: `invalid_reply`), nesting
 * objects and arrays at most 500 levels deep.
 */
export const ReplyValue = z.unknown().transform((value, ctx): string | z.infer<typeof JsonReply> => {
  if (nestsDeeperThan(value, MAX_REPLY_DEPTH)) {
    ctx.addIssue({ code: 'custom', message: `reply is nested more than ${MAX_REPLY_DEPTH} levels deep (objects and arrays inside each other); flatten it` });
    return z.NEVER;
  }
  const parsed = typeof value === 'string' ? ReplyText.safeParse(value) : JsonReply.safeParse(value);
  if (parsed.success) return parsed.data;
  const message = typeof value === 'string' ? (parsed.error.issues[0]?.message ?? 'reply is not valid') : 'reply is required: the text (or, for a node with a reply schema, the JSON value) the waiting node receives';
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
});
