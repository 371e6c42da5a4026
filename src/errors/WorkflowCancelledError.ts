import { SwitchboardError } from './SwitchboardError.js';

/**
 * A run was cancelled through its `signal`. Its `name` is `AbortError`, as for any aborted
 * operation in Node, so `error.name === 'AbortError'` checks keep working.
 */
export class WorkflowCancelledError extends SwitchboardError {
  override readonly name = 'AbortError';
  readonly runId: string;

  constructor(runId: string) {
    super(`run ${runId} was cancelled: its signal was aborted before it finished`, {
      code: 'run_cancelled',
      fault: 'user',
      retryable: false,
    });
    this.runId = runId;
  }
}
