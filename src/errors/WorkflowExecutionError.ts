import { SwitchboardError, type SwitchboardErrorCode } from './SwitchboardError.js';

/**
 * A run failed while executing: a node, router or condition threw, a node returned something that
 * is not a result, or a router named a node that does not exist. Reported as `run.error` of a
 * `failed` run; `cause` holds the value that was thrown.
 */
export class WorkflowExecutionError extends SwitchboardError {
  override readonly name = 'WorkflowExecutionError';
  /** The node that was running or being routed from. */
  readonly nodeId: string | undefined;

  constructor(
    message: string,
    options: { code: SwitchboardErrorCode; nodeId?: string; cause?: unknown; retryable?: boolean },
  ) {
    super(message, { code: options.code, fault: 'user', retryable: options.retryable ?? false, cause: options.cause });
    this.nodeId = options.nodeId;
  }
}
