import { FINISHED_STATUSES, type RunRecord, type RunStore } from '../persistence/RunStore.js';
import { RunStateError } from '../errors/RunStateError.js';
import type { GraphMachineContext, GraphMachineOutput } from '../graph/GraphMachineContext.js';
import type { SpecialistRuns } from '../graph/SpecialistRuns.js';
import type { RunStatus } from '../graph/WorkflowRun.js';
import { readPath } from '../graph/PathLog.js';
import { cancelRun } from '../graph/durable/cancelRun.js';
import { insertQueuedRun } from '../graph/durable/insertQueuedRun.js';

/** What a finished stored run's machine gave as its output, read back from its row and last snapshot. */
export function storedOutput(record: RunRecord): GraphMachineOutput {
  const context = ((record.snapshot as { context?: Partial<GraphMachineContext> } | null)?.context ?? {}) as Partial<GraphMachineContext>;
  return {
    runId: record.runId,
    status: record.status as RunStatus,
    result: context.result ?? null,
    outputText: record.outputText ?? context.result?.outputText ?? null,
    path: readPath(context.path),
    steps: typeof context.steps === 'number' ? context.steps : 0,
    state: context.state ?? {},
    error: record.error ?? context.error ?? null,
    waiting: null,
    budget: context.budget ?? null,
  };
}

/**
 * A coordinator's specialists as stored runs in the run queue's store: a task's run is created
 * queued (its id names the parent run, the dispatch and the task, so creating it again finds the
 * first), and its worker's leg is the job that `RunWorker` links to the coordinator's job.
 */
export function storedSpecialistRuns(store: RunStore): SpecialistRuns {
  return {
    async settle(task, machine) {
      let record = await store.getRun(task.runId);
      if (record === null) {
        try {
          record = await insertQueuedRun(machine, { input: task.input }, { store, runId: task.runId, state: task.state, trace: task.trace });
        } catch (error) {
          // Another leg of the parent created it first (a duplicate key): read that one.
          record = await store.getRun(task.runId);
          if (record === null) throw error;
        }
      }
      if (!FINISHED_STATUSES.has(record.status)) return { ended: false, status: record.status, waitReason: record.waitReason };
      return { ended: true, output: storedOutput(record) };
    },
    async cancel(runId) {
      try {
        await cancelRun(store, runId);
      } catch (error) {
        // Ended already, or never created: nothing to stop.
        if (error instanceof RunStateError && (error.code === 'run_finished' || error.code === 'run_not_found')) return;
        throw error;
      }
    },
  };
}
