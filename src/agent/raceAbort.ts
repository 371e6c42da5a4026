/** The error a raced promise rejects with when its signal aborts. */
export class AbortedError extends Error {
  override readonly name = 'AbortError';
  constructor(readonly reason: unknown) {
    super('the operation was aborted');
  }
}

/**
 * Settles like `promise`, or rejects with `AbortedError` as soon as `signal` aborts, so a model or
 * tool that ignores its signal cannot hold the loop. The losing promise's rejection is swallowed.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  promise.catch(() => {});
  if (signal.aborted) return Promise.reject(new AbortedError(signal.reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** A signal that aborts when any of `signals` does. */
export function linkSignals(...signals: (AbortSignal | undefined)[]): AbortController {
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal === undefined) continue;
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    const forward = () => controller.abort(signal.reason);
    signal.addEventListener('abort', forward, { once: true });
    controller.signal.addEventListener('abort', () => signal.removeEventListener('abort', forward), { once: true });
  }
  return controller;
}
