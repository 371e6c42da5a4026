import { SwitchboardError } from './SwitchboardError.js';

/**
 * A command was called wrongly: an unknown graph or scenario name, an option value out of range.
 * The CLI reports it with the code `usage` and exit code 2; fix the command line and run it again.
 */
export class UsageError extends SwitchboardError {
  override readonly name = 'UsageError';

  constructor(message: string, cause?: unknown) {
    super(message, { code: 'usage', fault: 'user', retryable: false, cause });
  }
}
