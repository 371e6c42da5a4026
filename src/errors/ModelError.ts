import { SwitchboardError, type ErrorFault } from './SwitchboardError.js';

/** The codes a model call can fail with. */
export type ModelErrorCode = 'model_error' | 'rate_limited' | 'model_retries_exhausted' | 'timeout';

/** Which time limit a `timeout` error hit: the whole call, or the wait between streamed chunks. */
export type ModelTimeoutLimit = 'timeoutMs' | 'idleTimeoutMs';

/**
 * A model call failed: the server kept answering 429 (`rate_limited`) or 5xx / could not be reached
 * (`model_retries_exhausted`) after the client's retries ran out, the call outlasted its time limit
 * or its stream stalled (`timeout`; `limit` names which), or it rejected the request (`model_error`,
 * e.g. 400 or 401). The message names the model, the server and the fix; it never contains the API
 * key.
 */
export class ModelError extends SwitchboardError {
  override readonly name = 'ModelError';
  /** The HTTP status the server last answered with, if it answered at all. */
  readonly status: number | undefined;
  /** How many requests were made for this call (first attempt plus retries), when known. */
  readonly attempts: number | undefined;
  /** For `timeout`: the limit that was hit. */
  readonly limit: ModelTimeoutLimit | undefined;

  constructor(
    message: string,
    options: {
      code: ModelErrorCode;
      status?: number;
      attempts?: number;
      limit?: ModelTimeoutLimit;
      fault?: ErrorFault;
      retryable?: boolean;
      cause?: unknown;
    },
  ) {
    super(message, {
      code: options.code,
      fault: options.fault ?? 'model',
      retryable: options.retryable ?? options.code !== 'model_error',
      cause: options.cause,
    });
    this.status = options.status;
    this.attempts = options.attempts;
    this.limit = options.limit;
  }
}
