import { SwitchboardError, type SwitchboardErrorCode } from '../errors/SwitchboardError.js';

/** A run store could not do what was asked: bad configuration, a corrupt row, a lost connection. */
export class StoreError extends SwitchboardError {
  override readonly name = 'StoreError';

  constructor(message: string, options: { code: SwitchboardErrorCode; cause?: unknown; retryable?: boolean }) {
    super(message, { code: options.code, fault: 'system', retryable: options.retryable ?? false, cause: options.cause });
  }
}
