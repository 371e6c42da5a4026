import { SwitchboardError } from '../errors/SwitchboardError.js';

/**
 * An input was refused before anything ran or was stored: a blank or oversized message or reply,
 * an unknown fault, a budget that is not a whole number in range, an image that is not a readable
 * picture of an accepted type. The message names the input, the rule and how to fix it. The CLI
 * exits 2 on it; the HTTP API answers 400.
 */
export class InputError extends SwitchboardError {
  override readonly name = 'InputError';

  constructor(message: string, cause?: unknown) {
    super(message, { code: 'invalid_input', fault: 'user', retryable: false, cause });
  }
}
