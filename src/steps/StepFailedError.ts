import { SwitchboardError } from '../errors/SwitchboardError.js';

/**
 * A step `checkpointingStepRunner` recorded as FAILED was reached again: failed steps are not
 * retried by themselves. Reset them with `new CheckpointManager(store).resetFailedSteps(runId)` (or
 * `switchboard retry <runId>`), then run the same run id again.
 */
export class StepFailedError extends SwitchboardError {
  override readonly name = 'StepFailedError';

  constructor(message: string, readonly runId: string, readonly stepKey: string) {
    super(message, { code: 'step_failed', fault: 'user', retryable: true });
  }
}
