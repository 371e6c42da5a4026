import type { ModelTimeoutLimit } from '../errors/ModelError.js';

/** The error a call raced by a {@link CallDeadline} rejects with once a limit expires. */
export class DeadlineExpired extends Error {
  override readonly name = 'DeadlineExpired';
  constructor(readonly limit: ModelTimeoutLimit) {
    super(`the model call exceeded ${limit}`);
  }
}

/**
 * The time limits of one model call. Its `signal` aborts when the caller's signal aborts, when the
 * whole call outlasts `timeoutMs`, or when the idle timer (started by {@link startIdle}) expires
 * before {@link stopIdle}; `expired` then says which limit it was. `race` settles a promise
 * early when the signal aborts, so an SDK that keeps waiting (a retry back-off, a body that never
 * ends) cannot hold the caller; the losing promise's rejection is swallowed.
 */
export class CallDeadline {
  readonly #controller = new AbortController();
  readonly #idleTimeoutMs: number;
  readonly #total: ReturnType<typeof setTimeout>;
  #idle: ReturnType<typeof setTimeout> | undefined;
  #expired: ModelTimeoutLimit | null = null;
  readonly #forget: () => void;

  constructor(options: { signal?: AbortSignal | null | undefined; timeoutMs: number; idleTimeoutMs: number }) {
    this.#idleTimeoutMs = options.idleTimeoutMs;
    const outer = options.signal ?? undefined;
    const forward = () => this.#controller.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    this.#forget = () => outer?.removeEventListener('abort', forward);
    this.#total = setTimeout(() => this.#expire('timeoutMs'), options.timeoutMs);
  }

  /** Aborts when the caller aborts or a limit expires; pass it to the SDK. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The limit that expired, or null. */
  get expired(): ModelTimeoutLimit | null {
    return this.#expired;
  }

  /** (Re)starts the idle timer: call it just before waiting for the next chunk. */
  startIdle(): void {
    this.stopIdle();
    this.#idle = setTimeout(() => this.#expire('idleTimeoutMs'), this.#idleTimeoutMs);
  }

  /** Stops the idle timer once a chunk arrived, so a slow consumer of the chunk is not counted as a stall. */
  stopIdle(): void {
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  /** Settles like `promise`, or rejects as soon as the signal aborts. */
  race<T>(promise: Promise<T>): Promise<T> {
    promise.catch(() => {});
    const signal = this.#controller.signal;
    if (signal.aborted) return Promise.reject(this.#abortError());
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(this.#abortError());
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

  /** Stops the timers and the link to the caller's signal; call it when the call settles. */
  dispose(): void {
    clearTimeout(this.#total);
    this.stopIdle();
    this.#forget();
  }

  #expire(limit: ModelTimeoutLimit): void {
    if (this.#controller.signal.aborted) return;
    this.#expired = limit;
    this.dispose();
    this.#controller.abort(new DeadlineExpired(limit));
  }

  #abortError(): Error {
    if (this.#expired !== null) return new DeadlineExpired(this.#expired);
    const abort = new Error('the model call was aborted');
    abort.name = 'AbortError';
    return abort;
  }
}
