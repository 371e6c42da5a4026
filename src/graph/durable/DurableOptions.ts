import type { RunStore } from '../../persistence/RunStore.js';
import type { Clock, InspectObserver, RunOptions } from '../RunOptions.js';
import type { TraceRecorder } from '../../trace/TraceRecorder.js';
import type { SpecialistRuns } from '../SpecialistRuns.js';

/** Options that make a run durable: where it is stored and how its lease works. */
export interface DurableOptions {
  /** Checkpoint the run here after every node; the run can then wait, resume and recover. */
  store?: RunStore;
  /** This process's lease owner id (default `host/pid/random`). */
  owner?: string;
  /** How long a lease lasts without renewal before another process may recover the run (default 30 s). */
  leaseMs?: number;
}

/** Options for resuming or recovering a stored run. */
export interface ResumeOptions extends DurableOptions {
  store: RunStore;
  signal?: AbortSignal;
  session?: unknown;
  onEvent?: RunOptions['onEvent'];
  /** Receive the resumed leg's events, redacted (their `seq` continues the stored run's). */
  recorders?: readonly TraceRecorder[];
  /** XState's inspection observer for the restored actor (e.g. the Stately inspector's `inspect`). */
  inspect?: InspectObserver;
  clock?: Clock;
  /** Use nodes' `executeStream` (default false). */
  streaming?: boolean;
  /** How the resumed leg's steps execute (see `RunOptions.stepRunner`). */
  stepRunner?: RunOptions['stepRunner'];
  /**
   * Where a coordinator's specialists run (a `RunWorker` passes the run queue's): each task becomes
   * a stored run of its own and the run waits until they have ended. Left out: in this process.
   */
  specialistRuns?: SpecialistRuns;
}

/** The default lease length. */
export const DEFAULT_LEASE_MS = 30_000;
