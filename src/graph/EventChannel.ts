/**
 * An unbounded async queue: producers `push`, then `close` or `fail`; one consumer iterates.
 * Used to turn a run's `onEvent` callbacks into the `AsyncIterable` that `stream()` returns.
 */
export class EventChannel<T> implements AsyncIterator<T> {
  #items: T[] = [];
  #head = 0;
  #waiting: ((result: IteratorResult<T>) => void) | null = null;
  #failWaiting: ((error: unknown) => void) | null = null;
  #closed = false;
  #error: { value: unknown } | null = null;
  #onReturn: () => void;

  /** `onReturn` runs when the consumer stops early (break, return, throw in a for-await body). */
  constructor(onReturn: () => void = () => {}) {
    this.#onReturn = onReturn;
  }

  push(item: T): void {
    if (this.#closed) return;
    if (this.#waiting !== null) {
      const resolve = this.#waiting;
      this.#waiting = this.#failWaiting = null;
      resolve({ value: item, done: false });
    } else {
      this.#items.push(item);
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#waiting !== null && this.#head >= this.#items.length) {
      const resolve = this.#waiting;
      this.#waiting = this.#failWaiting = null;
      resolve({ value: undefined, done: true });
    }
  }

  fail(error: unknown): void {
    this.#error = { value: error };
    this.#closed = true;
    if (this.#failWaiting !== null && this.#head >= this.#items.length) {
      const reject = this.#failWaiting;
      this.#waiting = this.#failWaiting = null;
      reject(error);
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#head < this.#items.length) {
      const value = this.#items[this.#head]!;
      this.#items[this.#head++] = undefined as T;
      if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
        this.#items = this.#items.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.#error !== null) return Promise.reject(this.#error.value);
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiting = resolve;
      this.#failWaiting = reject;
    });
  }

  return(): Promise<IteratorResult<T>> {
    if (!this.#closed) {
      this.#closed = true;
      this.#onReturn();
    }
    this.#items = [];
    this.#head = 0;
    return Promise.resolve({ value: undefined, done: true });
  }
}
