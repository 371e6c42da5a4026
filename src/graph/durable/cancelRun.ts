import { FINISHED_STATUSES, type RunRecord, type RunStore } from '../../persistence/RunStore.js';
import { RunStateError } from '../../errors/RunStateError.js';
import type { GraphMachineContext } from '../GraphMachineContext.js';
import { abortLocalRun } from './localLegs.js';

/**
 * Cancels a stored run that is running, waiting or interrupted. A run executing in this process is
 * aborted at once; one executing elsewhere stops at its next checkpoint, which loses its
 * compare-and-set against the cancellation. A running run's row keeps its owner and lease until
 * that leg has stored its last events (or the lease runs out, if its process died). A coordinator
 * run that waits for its specialist runs on the run queue cancels those still out with it (each as
 * here; one that ended already is left as it is), as a coordinator cancelled in process stops its
 * specialists.
 */
export async function cancelRun(store: RunStore, runId: string, options: { now?: () => number } = {}): Promise<RunRecord> {
  const now = options.now ?? Date.now;
  for (let attempt = 0; attempt < 5; attempt++) {
    const record = await store.getRun(runId);
    if (record === null) throw new RunStateError(`run not found: ${runId}`, { code: 'run_not_found', runId });
    if (FINISHED_STATUSES.has(record.status)) {
      throw new RunStateError(`run ${runId} already finished (${record.status}); only running, waiting or interrupted runs can be cancelled`, {
        code: 'run_finished',
        runId,
      });
    }
    // Events committed with step records are past the row's lastSeq: number on from the last stored one.
    const lastSeq = Math.max(record.lastSeq, ...(await store.listEvents(runId, { afterSeq: record.lastSeq })).map((e) => e.seq));
    const at = now();
    const event = { runId, seq: lastSeq + 1, type: 'run.cancelled', at, data: { type: 'run.cancelled', runId, seq: lastSeq + 1, at, previousStatus: record.status } };
    // A running owner writes events too; only a run nobody executes gets the event in its log.
    const executing = record.status === 'running';
    const events = executing ? [] : [event];
    // The owner of a running run is kept: it still writes the leg's last events (node.cancelled,
    // run.completed) and then clears it, so a reader knows when nothing more can follow.
    const release = executing ? {} : { owner: null, leaseExpiresAt: null };
    const updated = await store.updateRun(
      runId,
      record.version,
      { status: 'cancelled', ...release, waitReason: null, ...(events.length ? { lastSeq: event.seq } : {}) },
      events,
    );
    if (updated !== null) {
      abortLocalRun(runId);
      await cancelSpecialistRuns(store, record, options);
      return (await store.getRun(runId))!;
    }
    // A checkpoint landed in between: read again and retry.
  }
  throw new RunStateError(`run ${runId} kept changing while cancelling; try again`, { code: 'run_conflict', runId, retryable: true });
}

/**
 * Cancels the specialist runs a coordinator run's row says it waits for (`waiting.queued`, the
 * runs its join parked on): left alone, their workers would run them to their end for a run that
 * no longer wants them. Those nobody executes go first: a running one aborted in this process
 * frees its worker's slot, which must not take a sibling still queued before it is cancelled.
 */
async function cancelSpecialistRuns(store: RunStore, coordinator: RunRecord, options: { now?: () => number }): Promise<void> {
  const queued = (coordinator.snapshot as { context?: GraphMachineContext } | null)?.context?.waiting?.queued;
  if (queued === undefined) return;
  const running: string[] = [];
  const idle: string[] = [];
  for (const child of queued.runs) ((await store.getRun(child.runId))?.status === 'running' ? running : idle).push(child.runId);
  for (const childId of [...idle, ...running]) {
    try {
      await cancelRun(store, childId, options);
    } catch (error) {
      // Ended already, or never created: nothing to stop. One that kept changing (its leg checkpoints
      // faster than the cancel lands) must not fail the coordinator's cancel, which is done, nor keep
      // its siblings running: a worker refuses its next leg, its coordinator run having finished.
      if (error instanceof RunStateError && (error.code === 'run_finished' || error.code === 'run_not_found' || error.code === 'run_conflict')) continue;
      throw error;
    }
  }
}
