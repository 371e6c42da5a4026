/** True for a value with a callable `then` (a Promise or any promise-like object). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * When a callback returned a promise-like value, makes sure its rejection is handled (passed to
 * `onRejected`, or dropped), so it can never surface as an unhandled rejection. Returns whether
 * the value was promise-like. A `then` that throws counts as a rejection.
 */
export function catchThenable(value: unknown, onRejected: (error: unknown) => void = () => {}): boolean {
  if (!isThenable(value)) return false;
  const handle = (error: unknown): void => {
    try {
      onRejected(error);
    } catch {
      // The handler is the engine's own reporting; a failure there has nowhere left to go.
    }
  };
  try {
    value.then(undefined, handle);
  } catch (error) {
    handle(error);
  }
  return true;
}
