import { SwitchboardError } from '../errors/SwitchboardError.js';

/**
 * A `ScriptedModel` was called when its script had no turn left, a turn's expectations did not hold,
 * or turns were left unconsumed at `assertDone()`. The message names the turn and what differed.
 */
export class ScriptMismatchError extends SwitchboardError {
  override readonly name = 'ScriptMismatchError';

  constructor(message: string) {
    super(message, { code: 'script_mismatch', fault: 'user', retryable: false });
  }
}
