import { SwitchboardError } from '../errors/SwitchboardError.js';

/**
 * Thrown by a step to end the run `aborted` with `output = result`: a degraded but meaningful
 * answer, not an exception to the caller (`run()` resolves; `onError` does not catch it).
 *
 * @example
 * step('fetch', async () => { if (down) throw new WorkflowAbort('the report service is down; try later'); … });
 */
export class WorkflowAbort extends SwitchboardError {
  override readonly name = 'WorkflowAbort';
  /** The run's output. */
  readonly result: unknown;

  constructor(result: unknown, message = 'the workflow was aborted by a step') {
    super(message, { code: 'workflow_aborted', fault: 'user', retryable: false });
    this.result = result;
  }
}

/** How `Steps.terminate` ends a run. */
export type TerminateStatus = 'completed' | 'aborted' | 'failed';

/** Thrown by `Steps.terminate`: ends the run early with a status and its message as the output. */
export class WorkflowTermination extends SwitchboardError {
  override readonly name = 'WorkflowTermination';
  readonly status: TerminateStatus;

  constructor(status: TerminateStatus, message: string) {
    super(message, { code: 'workflow_aborted', fault: 'user', retryable: false });
    this.status = status;
  }
}
