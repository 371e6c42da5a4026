/** What {@link until} polls: a value (or a promise of one) that is undefined, null or false while not there yet. */
export type UntilCheck<T> = () => Promise<T | undefined | null | false> | T | undefined | null | false;

/**
 * Polls `check` every `everyMs` (default 25) until it gives a value that is not undefined, null or
 * false, and returns that value; after `ms` (default 30 s) it throws `timed out waiting for <what>`,
 * so a test that waits on another process or a queue fails saying what never happened.
 */
export async function until<T>(what: string, check: UntilCheck<T>, options: { ms?: number; everyMs?: number } = {}): Promise<T> {
  const { ms = 30_000, everyMs = 25 } = options;
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
