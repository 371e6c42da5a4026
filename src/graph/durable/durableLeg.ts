import type { Actor } from 'xstate';
import { FINISHED_STATUSES, type RunRecord, type RunStore } from '../../persistence/RunStore.js';
import { SwitchboardError, serializeError } from '../../errors/SwitchboardError.js';
import type { GraphMachine } from '../compileMachine.js';
import { driveActor } from '../driveActor.js';
import type { GraphMachineEvent, WaitingInfo } from '../GraphMachineContext.js';
import { finishRun } from '../executeRun.js';
import type { PendingEvent, RunRuntime } from '../RunRuntime.js';
import type { Clock } from '../RunOptions.js';
import type { WorkflowRun } from '../WorkflowRun.js';
import { Checkpointer } from './Checkpointer.js';
import type { CheckpointerOptions } from './CheckpointerOptions.js';
import type { EventIntake } from './EventIntake.js';
import { persistedSnapshot } from './persistedSnapshot.js';
import { holdLeg } from './localLegs.js';

/** Everything one leg of a stored run needs. */
export interface LegOptions {
  store: RunStore;
  record: RunRecord;
  runtime: RunRuntime;
  owner: string;
  leaseMs: number;
  clock: Clock;
  signal?: AbortSignal;
  /** Sent right after start (a human reply). */
  event?: GraphMachineEvent;
  /** The restored run waited; do not settle on that same wait. */
  ignoreRestoredWait?: boolean;
  /** The events a new run emitted (inside createActor) before its row existed: stored first. */
  early?: EventIntake;
  /** The persisted snapshot the run's row holds, when this process took it (a new run). */
  base?: CheckpointerOptions['base'];
  /** The secret values to scrub (default: the run's, see `RunRuntime.secrets`). */
  secrets?: readonly string[];
  /** Reported (and stored) first when the leg continues a stored run. */
  resumed?: Extract<PendingEvent, { type: 'run.resumed' }>;
}

/**
 * Runs one leg of a stored run (from its start or a resume until it ends or waits): checkpoints
 * after every macrostep (step records, committed in groups; see {@link Checkpointer}), stops if
 * another process takes the run over, and reports a write that failed (such as a state value that
 * is not JSON) as the run's error.
 */
export async function durableLeg(actor: Actor<GraphMachine>, options: LegOptions): Promise<WorkflowRun> {
  const { runtime, record } = options;
  const { local, cancel, release } = holdLeg(runtime, record.runId, options.signal);
  let writeError: SwitchboardError | null = null;
  let takenOver: RunRecord | null = null;
  const checkpointer = new Checkpointer(options.store, record, {
    owner: options.owner,
    leaseMs: options.leaseMs,
    clock: options.clock,
    secrets: options.secrets ?? runtime.secrets,
    path: actor.getSnapshot().context.trace.path,
    onFenced: (current) => {
      takenOver = current;
      if (current?.status === 'cancelled') cancel();
      else local.abort();
    },
    // A write that failed (a value too large, a store that went away) stops the run: nothing after it would be kept.
    onFailed: () => local.abort(),
    // Cancelled in another process while a node runs: the node sees the abort at once.
    onCancelled: cancel,
    ...(options.base === undefined ? {} : { base: options.base }),
    ...(options.early === undefined ? {} : { early: options.early }),
  });
  runtime.barrier = checkpointer.barrier;
  runtime.addRecorder(checkpointer);
  if (options.resumed !== undefined) runtime.emit(record.runId, options.resumed);
  const restoredWait = options.ignoreRestoredWait === true ? actor.getSnapshot().context.waiting : null;
  let pauseDriver: ((waiting: WaitingInfo) => void) | null = null;
  runtime.pause = (waiting) => {
    runtime.pause = null;
    // Taken before the actor stops: the node about to run is in flight in it, so a resume runs it.
    const persisted = persistedSnapshot(actor);
    runtime.emit(record.runId, { type: 'run.waiting', nodeId: waiting.nodeId, step: actor.getSnapshot().context.steps, reason: waiting.reason, breakpoint: waiting.breakpoint! });
    try {
      checkpointer.pause(actor, persisted, waiting);
    } catch (error) {
      writeError = error as SwitchboardError;
      local.abort();
      return;
    }
    pauseDriver?.(waiting);
  };
  try {
    const done = driveActor(actor, {
      pauseHandle: (pause) => (pauseDriver = pause),
      signal: local.signal,
      ignoreRestoredWait: options.ignoreRestoredWait,
      onSnapshot: (a) => {
        if (writeError !== null) return;
        // A resumed run still in the wait it was restored in (the reply is sent right after start)
        // has nothing new to store; writing that wait back would let a second resume claim the run.
        if (restoredWait !== null && a.getSnapshot().context.waiting === restoredWait) return;
        try {
          checkpointer.checkpoint(a);
        } catch (error) {
          writeError = error as SwitchboardError;
          local.abort();
        }
      },
    });
    if (options.event !== undefined) actor.send(options.event);
    let output = await done;
    // Stopped by a checkpoint that could not be taken or written (a value that is not JSON, a store
    // gone away): the run failed, and its last event says so, with the error its row will hold,
    // rather than the cancel the stop went through.
    const stoppedBy = writeError ?? checkpointer.failure;
    if (stoppedBy !== null && !checkpointer.fenced && !checkpointer.cancelled) {
      runtime.error = legFailure(stoppedBy);
      output = { ...output, status: 'failed', error: runtime.error.toJSON(), waiting: null };
    }
    const run = finishRun(runtime, output);
    await checkpointer.close(actor);
    // A cancelled coordinator's leg ends once the specialist runs its dispatch created are cancelled
    // (those still being created too): nothing of the run is left to wait or run after it.
    while (runtime.cancellation?.aborted === true && runtime.cancelling.size > 0) await Promise.allSettled([...runtime.cancelling]);
    // Cancelled in another process and found at a write: the store's word stands (the leg's last
    // events are stored, their run.completed saying so too), whatever the machine reached meanwhile.
    if (checkpointer.cancelled && checkpointer.failure === null && writeError === null) asCancelled(run);
    if (checkpointer.fenced) {
      // Another process cancelled or recovered this run; report what the store says.
      const current = takenOver as RunRecord | null;
      if (current?.status === 'cancelled') asCancelled(run);
      return run;
    }
    const failure = writeError ?? checkpointer.failure;
    if (failure !== null) {
      const outcome = { status: run.status, error: run.error };
      run.status = 'failed';
      run.error = legFailure(failure);
      // The store may be gone for good: the run still ends with the typed error, and its row (still
      // `running`, this leg's lease running out) is left to recovery.
      const current = await options.store.getRun(record.runId).catch(() => null);
      if (current !== null && FINISHED_STATUSES.has(current.status)) {
        // Finished meanwhile by a cancel (or by this leg's last write, which landed although it
        // reported an error): the store's word stands. This leg only releases the row if the
        // cancel left it its owner (its last events could not be stored).
        if (current.status === 'cancelled' || current.status === outcome.status) {
          run.status = current.status;
          if (outcome.status === current.status && outcome.error !== undefined) run.error = outcome.error;
          else delete run.error;
        }
        if (current.owner === options.owner) await options.store.updateRun(record.runId, current.version, { owner: null, leaseExpiresAt: null }).catch(() => null);
      } else if (current !== null && (current.owner === null || current.owner === options.owner)) {
        // Still this leg's (or nobody's): failed. A row another leg claimed once this leg's lease ran
        // out is that leg's to finish, and is left alone.
        await options.store.updateRun(record.runId, current.version, { status: 'failed', error: serializeError(run.error), owner: null, leaseExpiresAt: null }).catch(() => null);
      }
    }
    return run;
  } finally {
    runtime.pause = null;
    release();
  }
}

/** A failed checkpoint as the run's typed error. */
function legFailure(failure: unknown): SwitchboardError {
  return failure instanceof SwitchboardError
    ? failure
    : new SwitchboardError(`checkpoint failed: ${String((failure as Error).message ?? failure)}`, { code: 'store_unavailable', fault: 'system', cause: failure });
}

/** The run as its row says it ended, cancelled: no error, no wait (its stored run.completed says the same, see `cancelledEvents`). */
function asCancelled(run: WorkflowRun): void {
  run.status = 'cancelled';
  delete run.error;
  delete run.waiting;
}
