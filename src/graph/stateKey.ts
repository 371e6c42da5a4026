/** Root states the compiler adds beside the node states. */
export const FINAL_STATES = ['completed', 'maxSteps', 'failed', 'cancelled', 'budgetExceeded'] as const;

const reserved = new Set<string>(FINAL_STATES);

/**
 * Turns a node id into an XState state key. XState reads `.` and `#` in keys as paths, and the
 * final states share the root with the nodes, so those characters (and `%`, the escape itself) are
 * percent-encoded and ids equal to a final state's name get their first character encoded. The
 * mapping is one-to-one, so distinct ids always get distinct keys.
 */
export function stateKey(id: string): string {
  const key = id.replace(/[%.#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  if (!reserved.has(key)) return key;
  return `%${key.charCodeAt(0).toString(16).toUpperCase()}${key.slice(1)}`;
}
