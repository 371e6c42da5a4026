import { SwitchboardError } from '../errors/SwitchboardError.js';

/** The run queue could not do what was asked: bad configuration (`queue_config`) or Redis out of reach (`queue_unavailable`). */
export class QueueError extends SwitchboardError {
  override readonly name = 'QueueError';

  constructor(message: string, options: { code: 'queue_config' | 'queue_unavailable'; cause?: unknown }) {
    super(message, { code: options.code, fault: options.code === 'queue_config' ? 'user' : 'system', retryable: options.code === 'queue_unavailable', cause: options.cause });
  }
}
