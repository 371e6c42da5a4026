import { z } from 'zod';
import type { SnapshotPatch } from './snapshotPatch.js';

/**
 * Every status a stored run can have. `queued`: created through a `RunQueue`, it waits for a worker
 * to take its first leg; `interrupted`: its process died and it waits for `recover()`;
 * `aborted`: a typed workflow's step ended it early with a degraded answer; `budget-exceeded`: one of
 * its budgets was spent (the snapshot's context says which, its limit and what was spent).
 */
export const StoredRunStatus = z.enum(['queued', 'running', 'waiting', 'completed', 'max-steps', 'failed', 'cancelled', 'interrupted', 'aborted', 'budget-exceeded']);
/** Every status a stored run can have. */
export type StoredRunStatus = z.infer<typeof StoredRunStatus>;

/**
 * Finished statuses: the engine never moves a run out of one by itself (resume, recover, cancel and
 * a second leg refuse it). The one exception is an operator's `retryRun`, which moves a `failed`
 * run back to `running` in the same row (compare-and-set on its version); a store must treat that
 * row as unfinished again until it ends once more (as `MemoryRunStore`'s `maxFinishedRuns` does).
 */
export const FINISHED_STATUSES: ReadonlySet<StoredRunStatus> = new Set(['completed', 'max-steps', 'failed', 'cancelled', 'aborted', 'budget-exceeded']);

/** The version of the stored snapshot format; a run stored with another version is not resumed. */
export const SNAPSHOT_SCHEMA_VERSION = 1;

/** One run as stored: the latest persisted XState snapshot plus what lists and leases need. */
export const RunRecord = z.object({
  runId: z.string(),
  graphName: z.string(),
  /** The graph's structural hash: resuming with a graph whose shape changed is refused. */
  graphHash: z.string(),
  schemaVersion: z.number().int(),
  status: StoredRunStatus,
  /** The latest persisted snapshot (JSON), or null before the first checkpoint. */
  snapshot: z.unknown().nullable(),
  /** Bumped by every write; writes name the version they expect (compare-and-set). */
  version: z.number().int(),
  owner: z.string().nullable(),
  leaseExpiresAt: z.number().nullable(),
  waitReason: z.string().nullable(),
  outputText: z.string().nullable(),
  error: z.object({ name: z.string(), code: z.string(), message: z.string() }).nullable(),
  lastSeq: z.number().int(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
/** One run as stored. */
export type RunRecord = z.infer<typeof RunRecord>;

/** What a new run row starts with. */
export type NewRun = Pick<RunRecord, 'runId' | 'graphName' | 'graphHash' | 'status' | 'owner' | 'leaseExpiresAt'> & {
  snapshot?: unknown;
};

/** The fields a compare-and-set write may change. */
export type RunPatch = Partial<Pick<RunRecord, 'status' | 'snapshot' | 'owner' | 'leaseExpiresAt' | 'waitReason' | 'outputText' | 'error' | 'lastSeq'>>;

/** One stored event: the envelope's `seq` and `type` as columns, the whole event as JSON. */
export const StoredEvent = z.object({
  runId: z.string(),
  seq: z.number().int(),
  type: z.string(),
  at: z.number(),
  data: z.record(z.string(), z.unknown()),
});
/** One stored event. */
export type StoredEvent = z.infer<typeof StoredEvent>;

/** Where a step run by `checkpointingStepRunner` stands. */
export const StepStatus = z.enum(['RUNNING', 'COMPLETED', 'FAILED']);
/** Where a step run by `checkpointingStepRunner` stands. */
export type StepStatus = z.infer<typeof StepStatus>;

/**
 * One step of a run as `checkpointingStepRunner` records it: `graph` the graph's (or workflow's)
 * name (absent from records written before it was kept), `key` is `<step>:<nodeId>` (the 1-based
 * step number and the node), `output` the node's result and `writes` its shared-state changes once
 * COMPLETED, `error` once FAILED; `attempts` counts the executions.
 */
export const StepRecord = z.object({
  runId: z.string(),
  graph: z.string().optional(),
  key: z.string(),
  nodeId: z.string(),
  step: z.number().int(),
  status: StepStatus,
  output: z.unknown(),
  writes: z.object({ set: z.record(z.string(), z.unknown()), deleted: z.array(z.string()) }).nullable(),
  error: z.object({ name: z.string(), code: z.string(), message: z.string() }).nullable(),
  attempts: z.number().int(),
  updatedAt: z.number(),
});
/** One step of a run as `checkpointingStepRunner` records it. */
export type StepRecord = z.infer<typeof StepRecord>;

/** Filters for {@link RunStore.listRuns}. */
export interface RunFilter {
  status?: StoredRunStatus;
  graphName?: string;
  /**
   * Only runs whose id, starting input or answer contains this text, literally (`%`, `_` and `\` are
   * plain characters) and ignoring the case of A–Z (see `RunSearchText`). Runs stored before
   * version 0.1 kept no input column and are found by id and answer only.
   */
  search?: string;
  /** Newest first; default 100. */
  limit?: number;
}

/**
 * Where runs live: one row per run (latest snapshot, status, version for compare-and-set, lease) and
 * an append-only event log, plus the side-effect journal. Every implementation passes the same
 * contract suite (test/persistence/runStoreContract.ts).
 */
export interface RunStore {
  /** Creates the run row at version 1; fails if the id exists. */
  insertRun(run: NewRun): Promise<RunRecord>;
  getRun(runId: string): Promise<RunRecord | null>;
  listRuns(filter?: RunFilter): Promise<RunRecord[]>;
  /**
   * In one transaction: writes `patch` and appends `events`, only if the row is still at
   * `expectedVersion`, bumping the version. Resolves to the new version, or null when the version
   * (or the row) did not match — nothing is written then. A run's events are appended once each, in
   * increasing seq: a write repeating a seq its run holds is refused (`run_conflict`), wholly.
   */
  updateRun(runId: string, expectedVersion: number, patch: RunPatch, events?: StoredEvent[]): Promise<number | null>;
  /**
   * Appends step records and events in one transaction, only if the row is still at
   * `expectedVersion`; neither the row nor its version is written. Each step record is a
   * {@link SnapshotPatch} as stored JSON (`encodeStored`); `getRun` and `listRuns` return the snapshot
   * with every step record since the last snapshot applied, and `updateRun` with a `snapshot` drops
   * them. Resolves to false when the version (or the row) did not match — nothing is written then.
   * Optional: a store without it gets a full snapshot at every checkpoint.
   */
  appendSteps?(runId: string, expectedVersion: number, steps: readonly string[], events?: StoredEvent[]): Promise<boolean>;
  /** The most bytes one stored value may take (checked before a write is queued). */
  readonly maxValueBytes?: number;
  /**
   * Extends the lease if `owner` still holds it and the run is still `running`; false otherwise (a
   * run cancelled meanwhile keeps its owner until its leg stops, but the lease is not extended).
   * Does not bump the version.
   */
  renewLease(runId: string, owner: string, expiresAt: number): Promise<boolean>;
  listEvents(runId: string, options?: { afterSeq?: number; limit?: number }): Promise<StoredEvent[]>;
  /** The recorded result of a side effect, or undefined if it never completed. */
  getJournal(runId: string, step: number, key: string): Promise<{ value: unknown } | undefined>;
  /** Records a side effect's result; the first record for a key wins. */
  putJournal(runId: string, step: number, key: string, value: unknown): Promise<void>;
  /** Writes (or replaces) a step record of `checkpointingStepRunner`. Optional: stores without it cannot checkpoint steps. */
  putStepRecord?(record: StepRecord): Promise<void>;
  /** The step records of a run, in step order. */
  listStepRecords?(runId: string): Promise<StepRecord[]>;
  /** Removes the step records of a run with the given keys. */
  deleteStepRecords?(runId: string, keys: readonly string[]): Promise<void>;
  /** Total bytes held for a run (snapshot with its step records, events, journal): for measurements and `show`. */
  sizeOf(runId: string): Promise<{ snapshotBytes: number; eventBytes: number; journalBytes: number }>;
  close(): Promise<void>;
}
