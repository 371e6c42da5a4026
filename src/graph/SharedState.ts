/** The changes a step made to the shared state: keys written (with their new values) and keys removed. */
export interface StateDelta {
  set: Record<string, unknown>;
  deleted: string[];
}

const mapSet = Map.prototype.set;

/**
 * The shared state map of a run. It is a real `Map`; it also remembers which keys changed since
 * the last {@link SharedState.takeDelta}, so each step costs O(changes), never O(state).
 */
export class SharedState extends Map<string, unknown> {
  #changed = new Set<string>();

  constructor() {
    // Entries are loaded with fromObject(); the Map constructor would call set() before #changed exists.
    super();
  }

  /** Builds a map holding the entries of a plain JSON object, with no pending changes. */
  static fromObject(values: Record<string, unknown>): SharedState {
    const state = new SharedState();
    for (const key of Object.keys(values)) mapSet.call(state, key, values[key]);
    return state;
  }

  override set(key: string, value: unknown): this {
    super.set(key, value);
    this.#changed.add(key);
    return this;
  }

  override delete(key: string): boolean {
    const had = super.delete(key);
    if (had) this.#changed.add(key);
    return had;
  }

  override clear(): void {
    for (const key of this.keys()) this.#changed.add(key);
    super.clear();
  }

  /** Writes without recording a change (bookkeeping keys the engine maintains itself). */
  setQuietly(key: string, value: unknown): void {
    super.set(key, value);
  }

  /** Returns the changes since the last call, or null when nothing changed, and forgets them. */
  takeDelta(): StateDelta | null {
    if (this.#changed.size === 0) return null;
    const delta: StateDelta = { set: {}, deleted: [] };
    for (const key of this.#changed) {
      if (super.has(key)) delta.set[key] = super.get(key);
      else delta.deleted.push(key);
    }
    this.#changed.clear();
    return delta;
  }
}

/**
 * A new plain state object: `state` with the delta applied, then `keys` written. `state` is left as
 * it was (returned as is when there is nothing to change).
 */
export function withDelta(state: Record<string, unknown>, delta: StateDelta | null, keys: Record<string, unknown> = {}): Record<string, unknown> {
  const written = Object.keys(keys);
  if (delta === null && written.length === 0) return state;
  const next = { ...state };
  if (delta !== null) {
    for (const key of Object.keys(delta.set)) next[key] = delta.set[key];
    for (const key of delta.deleted) delete next[key];
  }
  for (const key of written) next[key] = keys[key];
  return next;
}
