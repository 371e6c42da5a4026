import { z } from 'zod';

/** The longest message or reply accepted, in characters. */
export const MAX_TEXT_CHARS = 20_000;

/** Characters that show nothing: whitespace, zero-width characters and controls. */
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\s\u0000-\u001f\u007f-\u009f\u200b-\u200d\u2060\ufeff]/gu;

/** A run's text (`what`: `message` or `reply`): required, not blank, no NUL, at most {@link MAX_TEXT_CHARS}; trimmed. */
function runText(what: 'message' | 'reply', purpose: string) {
  return z
    .string({ error: `${what} is required: ${purpose}` })
    .refine((text) => text.replace(INVISIBLE, '') !== '', `${what} must not be blank (it is empty or only spaces and invisible characters)`)
    .refine((text) => !text.includes('\u0000'), `${what} must not contain NUL characters`)
    .refine((text) => text.length <= MAX_TEXT_CHARS, { error: (issue) => `${what} must be at most ${MAX_TEXT_CHARS} characters; received ${String((issue.input as string).length)}` })
    .transform((text) => text.trim());
}

/**
 * The message a run starts with, as the CLI (`run`, `start`, `inspect`) and the HTTP API
 * (`POST /api/runs`) accept it: not blank (whitespace and invisible characters do not count), no
 * NUL, at most {@link MAX_TEXT_CHARS} characters. Parsed values are trimmed.
 */
export const MessageText = runText('message', 'the text the run starts with');

/** A person's reply to a waiting run (`resume --reply`, `POST /api/runs/:id/resume`): the same rules as {@link MessageText}. */
export const ReplyText = runText('reply', 'the text the waiting node receives');
