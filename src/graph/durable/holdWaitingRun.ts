import { defaultMemoryStore, type MemoryRunStore } from '../../persistence/MemoryRunStore.js';
import { FINISHED_STATUSES } from '../../persistence/RunStore.js';
import { RunStateError } from '../../errors/RunStateError.js';
import { SwitchboardError } from '../../errors/SwitchboardError.js';
import { assertJson } from '../assertJson.js';
import type { GraphSpec } from '../GraphSpec.js';
import { graphHash } from '../graphHash.js';
import type { WorkflowRun } from '../WorkflowRun.js';

/**
 * A waiting run's persisted snapshot, ready to be held (its output repeats the context and is
 * dropped), or the `not_json` error that says which state key keeps it from being held.
 */
export function heldSnapshot(persisted: unknown): Record<string, unknown> | SwitchboardError {
  const { output: _output, ...snapshot } = (persisted ?? {}) as Record<string, unknown>;
  try {
    assertJson(snapshot, 'snapshot');
    return snapshot;
  } catch (error) {
    if (!(error instanceof SwitchboardError)) throw error;
    return new SwitchboardError(`the run waits but cannot be kept for a resume: ${error.message}`, { code: 'not_json', cause: error });
  }
}

/**
 * Keeps a run that was started without a store and now waits, so that `resumeRun` without a store
 * continues it in this process. The snapshot is held as it is (it never leaves the process).
 */
export async function holdWaitingRun(
  spec: GraphSpec,
  run: WorkflowRun,
  snapshot: Record<string, unknown>,
  lastSeq: number,
  store: MemoryRunStore = defaultMemoryStore,
): Promise<void> {
  const existing = await store.getRun(run.runId);
  if (existing !== null) {
    if (!FINISHED_STATUSES.has(existing.status)) {
      throw new RunStateError(`run id ${run.runId} is already held in memory by a run that is ${existing.status}; give each run its own runId`, {
        code: 'run_conflict',
        runId: run.runId,
      });
    }
    // A finished run of the same id (a runId used again) gives way to the new wait.
    store.deleteRun(run.runId);
  }
  const record = await store.insertRun({ runId: run.runId, graphName: spec.name, graphHash: graphHash(spec), status: 'waiting', owner: null, leaseExpiresAt: null, snapshot });
  await store.updateRun(run.runId, record.version, { waitReason: run.waiting?.reason ?? null, outputText: run.outputText, lastSeq });
}
