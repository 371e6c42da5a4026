import { StateModel } from '../state/StateModel.js';

/** The changes a step made to the shared state: keys written (with their new values) and keys removed. */
export interface StateDelta {
  set: Record<string, unknown>;
  deleted: string[];
}

const mapSet = Map.prototype.set;

/** Freezes a value already known to be JSON (from a stored snapshot or the machine context), in place. */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
}

/**
 * The shared state map of a run. It is a real `Map`; it also remembers which keys changed since
 * the last {@link SharedState.takeDelta}, so each step costs O(changes), never O(state).
 *
 * Every write is checked by the graph's {@link StateModel}: the value must be JSON (and match its
 * key's schema when the graph declares its state), or a `StateValidationError` is thrown at the
 * write. What is stored is a frozen copy, so no snapshot of the run can change afterwards.
 * `set` replaces a value; {@link SharedState.put} (what `ctx.put` calls) applies the key's reducer.
 */
export class SharedState extends Map<string, unknown> {
  #changed = new Set<string>();
  readonly #model: StateModel;

  constructor(model: StateModel = StateModel.untyped) {
    // Entries are loaded with fromObject(); the Map constructor would call set() before #changed exists.
    super();
    this.#model = model;
  }

  /** Builds a map holding the entries of a plain JSON object (frozen in place), with no pending changes. */
  static fromObject(values: Record<string, unknown>, model: StateModel = StateModel.untyped): SharedState {
    for (const key of Object.keys(values)) deepFreeze(values[key]);
    return SharedState.copyOf(values, model);
  }

  /**
   * A map of its own holding a run's state as its machine has it, values as they are (those written
   * through the model are frozen copies already; the engine's keys, such as the last result the run
   * hands back, are left as they are), with no pending changes.
   */
  static copyOf(values: Record<string, unknown>, model: StateModel = StateModel.untyped): SharedState {
    const state = new SharedState(model);
    for (const key of Object.keys(values)) mapSet.call(state, key, values[key]);
    return state;
  }

  /** The model that checks this state's writes. */
  get model(): StateModel {
    return this.#model;
  }

  /** Replaces a key's value with a checked, frozen copy of `value`. */
  override set(key: string, value: unknown): this {
    super.set(key, this.#model.check(key, value, this.#writer()));
    this.#changed.add(key);
    return this;
  }

  /** Writes `update` through the key's reducer (replace by default), checked like {@link set}. */
  put(key: string, update: unknown): void {
    super.set(key, this.#model.reduce(key, super.get(key), update, this.#writer()));
    this.#changed.add(key);
  }

  /** The node writing now: the engine keeps it under `currentNodeId` while a step runs. */
  #writer(): string | null {
    const id = super.get('currentNodeId');
    return typeof id === 'string' ? id : null;
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

  /** Reports a key the engine wrote with {@link setQuietly} in the next delta after all. */
  markChanged(key: string): void {
    if (super.has(key)) this.#changed.add(key);
  }

  /** Writes without recording a change (bookkeeping keys the engine maintains itself). */
  setQuietly(key: string, value: unknown): void {
    super.set(key, value);
  }

  /** The changes since the last {@link takeDelta}, or null, without forgetting them. */
  peekDelta(): StateDelta | null {
    if (this.#changed.size === 0) return null;
    const delta: StateDelta = { set: {}, deleted: [] };
    for (const key of this.#changed) {
      if (super.has(key)) delta.set[key] = super.get(key);
      else delta.deleted.push(key);
    }
    return delta;
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
