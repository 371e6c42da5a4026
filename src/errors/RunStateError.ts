import { SwitchboardError } from './SwitchboardError.js';

/** Codes of {@link RunStateError}. */
export type RunStateErrorCode =
  | 'run_not_found'
  | 'run_conflict'
  | 'run_not_waiting'
  | 'run_finished'
  | 'graph_changed'
  | 'snapshot_version'
  | 'invalid_reply'
  | 'step_out_of_range'
  | 'fork_unsupported';

/**
 * A stored run cannot do what was asked in its current state: it does not exist, another process
 * changed it first (compare-and-set lost), it is not waiting, it already finished, or the graph
 * changed shape since it was stored. Nothing was changed by the refused call.
 */
export class RunStateError extends SwitchboardError {
  override readonly name = 'RunStateError';
  readonly runId: string;

  constructor(message: string, options: { code: RunStateErrorCode; runId: string; retryable?: boolean }) {
    super(message, { code: options.code, fault: 'user', retryable: options.retryable ?? false });
    this.runId = options.runId;
  }
}
