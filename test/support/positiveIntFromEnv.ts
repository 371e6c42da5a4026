/**
 * A positive integer from the environment variable `name` (a suite's size or seed), or `fallback`
 * when it is unset or empty. Anything else throws, naming the variable: a typo must not size a
 * suite to nothing and let it pass without trying.
 */
export function positiveIntFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new Error(`${name} must be a positive integer; received "${text}"`);
  return Number(text);
}
