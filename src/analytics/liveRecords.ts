import type { TransitionColumns } from './TransitionColumns.js';
import type { TransitionRecord } from './TransitionRecord.js';

/** Where Node's `util.inspect` (and so printing to the console) looks for an object's own formatting. */
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * The array a `TransitionRecorder` hands out as `records`: a real array (so `Array.isArray`, JSON,
 * spreading, indexing, `slice` and the other array methods behave as on any array) seen through a
 * Proxy that, before anything reads, changes or enumerates it, appends the records `columns` has kept
 * since last time, built as objects then. So the same array is up to date whenever it is looked at —
 * taken before a run, read in the middle of one or after it — while a run nobody reads builds no
 * record object at all. Reading `length` alone builds nothing: it counts the records still to build.
 * Records the user removed or added stay as they are; later records are appended after them.
 */
export function liveRecords(columns: TransitionColumns): TransitionRecord[] {
  const target: TransitionRecord[] = [];
  /** How many of the kept records have been built into `target`. */
  let made = 0;
  // Frozen or sealed (Object.freeze, an immutable store's auto-freeze), the array can take no more
  // records: it stays what it was then, and records of later runs are not added to it.
  const open = (): boolean => Reflect.isExtensible(target);
  const sync = (): void => {
    if (made < columns.length && open()) {
      columns.appendTo(target, made);
      made = columns.length;
    }
  };
  // Node formats a proxy by its target, without going through the traps below, so without this
  // printing the records would show only the ones built so far.
  Object.defineProperty(target, INSPECT, {
    value: (): TransitionRecord[] => {
      sync();
      return target.slice();
    },
    configurable: true,
    enumerable: false,
    writable: true,
  });
  // Iterating (for…of, spreading, Array.from) reads the array itself, not one trap per step of the
  // array iterator through the proxy (about 25 times slower per record); it still sees records that
  // arrive while it is under way.
  function* values(): Generator<TransitionRecord, undefined, undefined> {
    for (let i = 0; ; i++) {
      sync();
      if (i >= target.length) return undefined;
      yield target[i]!;
    }
  }
  // The hook above is the target's own property; nothing that goes through the proxy sees it.
  const hidden = (key: string | symbol): boolean => key === INSPECT && open();
  return new Proxy(target, {
    get(array, key) {
      if (key === 'length') return open() ? array.length + columns.length - made : array.length;
      if (hidden(key)) return undefined;
      if (key === Symbol.iterator) return values;
      sync();
      return Reflect.get(array, key);
    },
    set(array, key, value) {
      sync();
      return Reflect.set(array, key, value);
    },
    has(array, key) {
      if (hidden(key)) return false;
      sync();
      return Reflect.has(array, key);
    },
    ownKeys(array) {
      sync();
      return Reflect.ownKeys(array).filter((key) => !hidden(key));
    },
    getOwnPropertyDescriptor(array, key) {
      if (hidden(key)) return undefined;
      sync();
      return Reflect.getOwnPropertyDescriptor(array, key);
    },
    defineProperty(array, key, descriptor) {
      sync();
      return Reflect.defineProperty(array, key, descriptor);
    },
    deleteProperty(array, key) {
      sync();
      return Reflect.deleteProperty(array, key);
    },
    preventExtensions(array) {
      // Frozen or sealed, the array can take no later records; the hook goes, so what the proxy
      // reports stays consistent with its target.
      sync();
      Reflect.deleteProperty(array, INSPECT);
      return Reflect.preventExtensions(array);
    },
  });
}
