import type { Actor } from 'xstate';
import type { RunRecord, RunStore } from '../../persistence/RunStore.js';
import { SwitchboardError } from '../../errors/SwitchboardError.js';
import type { GraphMachine } from '../compileMachine.js';
import { driveActor } from '../driveActor.js';
import { finishRun } from '../executeRun.js';
import type { GraphMachineEvent, GraphMachineOutput } from '../GraphMachineContext.js';
import type { PendingEvent, RunRuntime } from '../RunRuntime.js';
import type { WorkflowRun } from '../WorkflowRun.js';
import { heldSnapshot } from './holdWaitingRun.js';
import { holdLeg } from './localLegs.js';

/** Everything a leg of a run held in memory needs. */
export interface MemoryLegOptions {
  store: RunStore;
  /** The run as claimed (status `running`). */
  record: RunRecord;
  runtime: RunRuntime;
  resumed: Extract<PendingEvent, { type: 'run.resumed' }>;
  signal?: AbortSignal;
  /** Sent right after start (a human reply). */
  event?: GraphMachineEvent;
}

/**
 * Runs a leg of a run started without a store, in memory as its first leg ran: no checkpoint per
 * step, one write when the leg ends — the new wait (its snapshot, so it can be resumed again), or
 * the final status and output.
 */
export async function memoryLeg(actor: Actor<GraphMachine>, options: MemoryLegOptions): Promise<WorkflowRun> {
  const { runtime, record, store } = options;
  // A cancel (cancelRun, or the caller's signal) reaches the node in flight, as a stored run's leg's does.
  const { local, release } = holdLeg(runtime, record.runId, options.signal);
  let output: GraphMachineOutput;
  let held: unknown = null;
  try {
    runtime.emit(record.runId, options.resumed);
    const done = driveActor(actor, {
      signal: local.signal,
      ignoreRestoredWait: options.event !== undefined,
      onWaiting: (a) => (held = a.getPersistedSnapshot()),
    });
    if (options.event !== undefined) actor.send(options.event);
    output = await done;
  } finally {
    release();
  }
  const kept = output.status === 'waiting' ? heldSnapshot(held) : null;
  if (kept instanceof SwitchboardError) output = { ...output, status: 'failed', error: kept.toJSON(), waiting: null };
  const run = finishRun(runtime, output);
  if (kept instanceof SwitchboardError) run.error = kept;
  const ended = {
    status: run.status,
    outputText: run.outputText,
    error: run.error === undefined ? null : run.error.toJSON(),
    waitReason: run.waiting?.reason ?? null,
    snapshot: kept instanceof SwitchboardError ? null : kept,
    owner: null,
    leaseExpiresAt: null,
    lastSeq: runtime.seq,
  };
  if ((await store.updateRun(record.runId, record.version, ended)) === null) {
    // Cancelled (cancelRun on the memory store) while this leg ran: the store's word stands.
    const current = await store.getRun(record.runId);
    if (current?.status === 'cancelled') {
      // As a stored run's leg reports it (see `durableLeg`): cancelled, no error, no wait, its output
      // its last completed node's.
      run.status = 'cancelled';
      delete run.error;
      delete run.waiting;
      // The cancel left this leg's owner and lease on the row (see `cancelRun`): nothing more follows.
      // The row takes the output the run reports (its own is the one stored at the wait).
      if (current.owner === record.owner) await store.updateRun(record.runId, current.version, { owner: null, leaseExpiresAt: null, outputText: run.outputText });
    }
  }
  return run;
}
