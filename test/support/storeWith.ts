import type { RunStore } from '../../src/index.js';

type Method = (...args: any[]) => any;

/**
 * The store with some of its methods wrapped: each override gets the store's own method (bound to
 * it) and returns what callers get instead; every other method is the store's, bound to it. A
 * method the store does not have (an optional one such as `appendSteps`) stays absent.
 */
export function storeWith(store: RunStore, overrides: Partial<Record<keyof RunStore, (original: Method) => Method>>): RunStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const original = (value as Method).bind(target);
      const override = overrides[key as keyof RunStore];
      return override === undefined ? original : override(original);
    },
  });
}

/** The store whose next write (`updateRun` or `appendSteps`) after `failNext()` throws a connection reset, once. */
export function failingNextWrite(store: RunStore): { store: RunStore; failNext(): void } {
  let failing = false;
  const write = (original: Method): Method => async (...args: unknown[]) => {
    if (failing) {
      failing = false;
      throw new Error('connection reset');
    }
    return original(...args);
  };
  return { store: storeWith(store, { updateRun: write, appendSteps: write }), failNext: () => (failing = true) };
}
