import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { describeValue } from '../graph/describeValue.js';
import type { RunStore, StepRecord } from '../persistence/RunStore.js';
import { stepRecordStore, type StepRecordStore } from './checkpointingStepRunner.js';

/** Each step of a run as `checkpointingStepRunner` recorded it. */
export interface RunStepState {
  runId: string;
  /** In step order. */
  steps: StepRecord[];
  /** How many steps are RUNNING, COMPLETED and FAILED. */
  counts: { RUNNING: number; COMPLETED: number; FAILED: number };
}

/**
 * An operator's view of the step records `checkpointingStepRunner` keeps in a store: what each
 * step of a run did, and resetting the failed ones so that running the same run id again retries
 * only those.
 *
 * @example
 * const manager = new CheckpointManager(store);
 * (await manager.getRunState('order-42')).steps.filter((s) => s.status === 'FAILED');
 * await manager.resetFailedSteps('order-42'); // then run 'order-42' again
 */
export class CheckpointManager {
  readonly #store: StepRecordStore;

  constructor(store: RunStore) {
    this.#store = stepRecordStore(store, 'new CheckpointManager()');
  }

  /** Each recorded step of the run: its status, output (COMPLETED) or error (FAILED), and attempts. */
  async getRunState(runId: string): Promise<RunStepState> {
    checkRunId(runId, 'getRunState');
    const steps = await this.#store.listStepRecords(runId);
    const counts = { RUNNING: 0, COMPLETED: 0, FAILED: 0 };
    for (const step of steps) counts[step.status] += 1;
    return { runId, steps, counts };
  }

  /**
   * Forgets the FAILED steps of the run (RUNNING ones too: a step still RUNNING in the store was cut
   * off by a crash), so the next run with this id executes them again. Resolves to their keys.
   */
  async resetFailedSteps(runId: string): Promise<string[]> {
    checkRunId(runId, 'resetFailedSteps');
    const steps = await this.#store.listStepRecords(runId);
    const keys = steps.filter((s) => s.status !== 'COMPLETED').map((s) => s.key);
    await this.#store.deleteStepRecords(runId, keys);
    return keys;
  }
}

/** A run id as the runs that record steps take it (`RunOptions.runId`): a blank or non-string one names no run. */
function checkRunId(runId: unknown, method: string): void {
  if (typeof runId !== 'string' || runId.trim() === '') {
    throw new GraphDefinitionError(`CheckpointManager.${method}(runId): runId must be the non-blank id of a run; received ${describeValue(runId)}`);
  }
}
