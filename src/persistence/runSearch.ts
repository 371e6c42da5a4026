import { formatZodError } from '../errors/formatZodError.js';
import { InputError } from '../input/InputError.js';
import { RunSearchText } from '../input/RunSearchText.js';
import type { RunFilter } from './RunStore.js';

/** Lower-cases A–Z only: the case folding every store applies the same way (SQLite's `lower`, PostgreSQL's `translate`). */
export const asciiLower = (text: string): string => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The character that escapes `%`, `_` and itself in the LIKE patterns of the SQL stores. */
export const LIKE_ESCAPE = '\\';

/** A LIKE pattern matching text that contains `search` literally (its `%`, `_` and `\` escaped), case-folded as {@link asciiLower}. */
export function likeContains(search: string): string {
  return `%${asciiLower(search).replace(/[\\%_]/g, (c) => `${LIKE_ESCAPE}${c}`)}%`;
}

/** Checks a run filter's search text (an `InputError` names what is wrong); the text itself when it is set. */
export function checkSearch(filter: RunFilter): string | undefined {
  if (filter.search === undefined) return undefined;
  const parsed = RunSearchText.safeParse(filter.search);
  if (!parsed.success) throw new InputError(`listRuns: ${formatZodError(parsed.error)}`);
  return parsed.data;
}

/** Whether a run's id, input or answer contains `search` (what the SQL stores' LIKE finds). */
export function matchesSearch(search: string, fields: readonly (string | null)[]): boolean {
  const wanted = asciiLower(search);
  return fields.some((field) => field !== null && asciiLower(field).includes(wanted));
}

/**
 * The input a run started with, as stored for search: the request input of its first snapshot
 * (text as is, anything else as JSON), or null when it has none.
 */
export function inputTextOf(snapshot: unknown): string | null {
  const input = (snapshot as { context?: { request?: { input?: unknown } } } | null | undefined)?.context?.request?.input;
  if (input === undefined || input === null) return null;
  return typeof input === 'string' ? input : JSON.stringify(input);
}
