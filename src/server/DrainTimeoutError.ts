import { SwitchboardError } from '../errors/SwitchboardError.js';

/**
 * The legs a workbench started did not all end in time (`WorkbenchRuns.drain`, `Workbench.close`,
 * `RunningServer.stop`); `runIds` names the runs still running in this process. Nothing was
 * stopped: they go on while the process lives. A run left running by a process that exits stays
 * stored as running, and `recoverRuns` (`switchboard recover`) continues it from its last checkpoint.
 */
export class DrainTimeoutError extends SwitchboardError {
  override readonly name = 'DrainTimeoutError';
  /** The runs whose legs were still running when the wait gave up. */
  readonly runIds: readonly string[];
  /** How long the wait was (ms). */
  readonly timeoutMs: number;

  constructor(runIds: readonly string[], timeoutMs: number) {
    super(`${runIds.length} run(s) still running after ${timeoutMs} ms: ${runIds.join(', ')}`, { code: 'drain_timeout', fault: 'system', retryable: true });
    this.runIds = runIds;
    this.timeoutMs = timeoutMs;
  }
}
