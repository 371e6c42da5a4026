import { FINISHED_STATUSES, SNAPSHOT_SCHEMA_VERSION, type RunRecord, type NewRun, type RunFilter, type RunPatch, type RunStore, type StepRecord, type StoredEvent } from './RunStore.js';
import { decodeStepRecord, encodeStepRecord } from './stepRecordRows.js';
import { StoreError } from './StoreError.js';
import { checkNewRun, checkPatch } from './checkStoreInput.js';
import { decodeStored, encodeStored } from './storedJson.js';
import { readEventRows } from './eventRows.js';
import { checkValueLimit, encodeEvents, encodeJournalValue, joinSteps, parseStored, withSteps } from './storeRows.js';
import { checkSearch, inputTextOf, matchesSearch } from './runSearch.js';

/** Options for {@link MemoryRunStore}. */
export interface MemoryRunStoreOptions {
  /** Time source (default `Date.now`). */
  now?: () => number;
  /**
   * How many finished runs (completed, max-steps, failed, cancelled, aborted, budget-exceeded) to keep; the oldest to finish
   * is dropped first, with its events and journal. Default: all of them.
   */
  maxFinishedRuns?: number;
  /** The most bytes one stored value (a snapshot, an event, a journal entry) may take (default 16 MiB). */
  maxValueBytes?: number;
}

/** A run as held: JSON kept as text, exactly as the SQL stores keep it, so reads never share objects. */
interface Held {
  record: Omit<RunRecord, 'snapshot' | 'error'>;
  snapshot: string | null;
  error: string | null;
  /** Step records written since the snapshot, one text per append (as the SQL stores keep them). */
  steps: string[];
  /** The input the run started with, for search (the SQL stores' `input_text`). */
  inputText: string | null;
}

/** One stored event, its data kept as JSON text. */
interface HeldEvent {
  seq: number;
  type: string;
  at: number;
  data: string;
}

const journalKey = (step: number, key: string) => `${step}\u0000${key}`;

/**
 * A run store in this process's memory: the same contract as the SQLite and PostgreSQL stores
 * (compare-and-set versions, leases, an ordered event log, the side-effect journal), gone when the
 * process ends. A run started without a store keeps its waiting snapshot in
 * {@link defaultMemoryStore}, so `resumeRun` can continue it in the same process.
 *
 * @example
 * const store = new MemoryRunStore();
 * const run = await graph.run('refund SO1', { store });          // waits at a human node
 * await resumeRun(graph, run.runId, { reply: 'approved' }, { store });
 */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, Held>();
  /** Event logs by the events' own run id, as the SQL stores key them (a log may exist without its run row). */
  readonly #events = new Map<string, { events: HeldEvent[]; seqs: Set<number> }>();
  /** Journal entries by run id (a specialist's are under its own run id, which has no run row), then step and key. */
  readonly #journal = new Map<string, Map<string, string>>();
  /** Step records of `checkpointingStepRunner` by run id, then step key. */
  readonly #stepRecords = new Map<string, Map<string, { step: number; text: string }>>();
  /** Finished run ids in the order they finished (a Set keeps insertion order). */
  readonly #finished = new Set<string>();
  readonly #now: () => number;
  readonly #maxFinished: number;
  readonly #limit: number;

  /** The most bytes one stored value may take. */
  readonly maxValueBytes: number;

  constructor(options: MemoryRunStoreOptions = {}) {
    const max = options.maxFinishedRuns ?? Number.POSITIVE_INFINITY;
    if (!(max === Number.POSITIVE_INFINITY || (Number.isInteger(max) && max >= 0))) {
      throw new StoreError(`MemoryRunStore: maxFinishedRuns must be a non-negative integer; received ${String(max)}`, { code: 'store_config' });
    }
    this.#now = options.now ?? Date.now;
    this.#maxFinished = max;
    this.#limit = checkValueLimit('MemoryRunStore', options.maxValueBytes);
    this.maxValueBytes = this.#limit;
  }

  async insertRun(run: NewRun): Promise<RunRecord> {
    checkNewRun(run);
    const snapshot = run.snapshot === undefined || run.snapshot === null ? null : encodeStored(run.snapshot, 'snapshot', this.#limit);
    if (this.#runs.has(run.runId)) {
      throw new StoreError(`cannot create run ${run.runId}: a run with this id already exists`, { code: 'run_conflict' });
    }
    const now = this.#now();
    this.#runs.set(run.runId, {
      record: {
        runId: run.runId,
        graphName: run.graphName,
        graphHash: run.graphHash,
        schemaVersion: SNAPSHOT_SCHEMA_VERSION,
        status: run.status,
        version: 1,
        owner: run.owner,
        leaseExpiresAt: run.leaseExpiresAt,
        waitReason: null,
        outputText: null,
        lastSeq: 0,
        createdAt: now,
        updatedAt: now,
      },
      snapshot,
      error: null,
      steps: [],
      inputText: inputTextOf(run.snapshot),
    });
    this.#noteFinished(run.runId, run.status);
    return (await this.getRun(run.runId))!;
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const held = this.#runs.get(runId);
    return held === undefined ? null : toRecord(held);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    const search = checkSearch(filter);
    const rows: Held[] = [];
    for (const held of this.#runs.values()) {
      if (filter.status !== undefined && held.record.status !== filter.status) continue;
      if (filter.graphName !== undefined && held.record.graphName !== filter.graphName) continue;
      if (search !== undefined && !matchesSearch(search, [held.record.runId, held.inputText, held.record.outputText])) continue;
      rows.push(held);
    }
    // The SQL stores' order: newest first, then by run id.
    rows.sort((a, b) => b.record.createdAt - a.record.createdAt || (a.record.runId < b.record.runId ? -1 : a.record.runId > b.record.runId ? 1 : 0));
    return rows.slice(0, filter.limit ?? 100).map(toRecord);
  }

  async updateRun(runId: string, expectedVersion: number, patch: RunPatch, events: StoredEvent[] = []): Promise<number | null> {
    checkPatch(patch);
    const data = encodeEvents(events, this.#limit);
    const encodedSnapshot = patch.snapshot === undefined || patch.snapshot === null ? patch.snapshot : encodeStored(patch.snapshot, 'snapshot', this.#limit);
    const encodedError = patch.error === undefined || patch.error === null ? patch.error : encodeStored(patch.error, 'error', this.#limit);
    const held = this.#runs.get(runId);
    if (held === undefined || held.record.version !== expectedVersion) return null;
    this.#checkEvents(events);
    const { snapshot, error, ...fields } = patch;
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) (held.record as Record<string, unknown>)[key] = value;
    if (snapshot !== undefined) {
      held.snapshot = encodedSnapshot ?? null;
      held.steps = [];
    }
    if (error !== undefined) held.error = encodedError ?? null;
    held.record.version = expectedVersion + 1;
    held.record.updatedAt = this.#now();
    this.#appendEvents(events, data);
    this.#noteFinished(runId, held.record.status);
    return expectedVersion + 1;
  }

  async appendSteps(runId: string, expectedVersion: number, steps: readonly string[], events: StoredEvent[] = []): Promise<boolean> {
    const text = joinSteps(runId, steps, this.#limit);
    const held = this.#runs.get(runId);
    if (held === undefined || held.record.version !== expectedVersion) return false;
    // The events go through the same checks and log as updateRun's, without touching the run.
    const data = encodeEvents(events, this.#limit);
    this.#checkEvents(events);
    this.#appendEvents(events, data);
    held.steps.push(text);
    return true;
  }

  async renewLease(runId: string, owner: string, expiresAt: number): Promise<boolean> {
    const held = this.#runs.get(runId);
    if (held === undefined || held.record.owner !== owner || held.record.status !== 'running') return false;
    held.record.leaseExpiresAt = expiresAt;
    return true;
  }

  async listEvents(runId: string, options: { afterSeq?: number; limit?: number } = {}): Promise<StoredEvent[]> {
    const log = this.#events.get(runId)?.events;
    if (log === undefined) return [];
    const after = options.afterSeq ?? 0;
    const held = log.filter((e) => e.seq > after).slice(0, options.limit ?? 1_000_000);
    // Each held event is a row of one, read as the SQL stores read theirs.
    return readEventRows(held.map((e) => ({ run_id: runId, seq: e.seq, type: e.type, at: e.at, data: e.data })), after, options.limit ?? 1_000_000);
  }

  async getJournal(runId: string, step: number, key: string): Promise<{ value: unknown } | undefined> {
    const value = this.#journal.get(runId)?.get(journalKey(step, key));
    return value === undefined ? undefined : { value: parseStored(value, `journal entry "${key}" of run ${runId}`, decodeStored) };
  }

  async putJournal(runId: string, step: number, key: string, value: unknown): Promise<void> {
    const text = encodeJournalValue(runId, step, key, value, this.#limit);
    let journal = this.#journal.get(runId);
    if (journal === undefined) this.#journal.set(runId, (journal = new Map()));
    const k = journalKey(step, key);
    if (!journal.has(k)) journal.set(k, text);
  }

  async putStepRecord(record: StepRecord): Promise<void> {
    const text = encodeStepRecord(record, this.#limit);
    let steps = this.#stepRecords.get(record.runId);
    if (steps === undefined) this.#stepRecords.set(record.runId, (steps = new Map()));
    steps.set(record.key, { step: record.step, text });
  }

  async listStepRecords(runId: string): Promise<StepRecord[]> {
    const steps = [...(this.#stepRecords.get(runId)?.values() ?? [])].sort((a, b) => a.step - b.step);
    return steps.map((s) => decodeStepRecord(s.text, runId));
  }

  async deleteStepRecords(runId: string, keys: readonly string[]): Promise<void> {
    const steps = this.#stepRecords.get(runId);
    for (const key of keys) steps?.delete(key);
  }

  async sizeOf(runId: string): Promise<{ snapshotBytes: number; eventBytes: number; journalBytes: number }> {
    const held = this.#runs.get(runId);
    const bytes = (text: string | null) => (text === null ? 0 : Buffer.byteLength(text));
    if (held === undefined) return { snapshotBytes: 0, eventBytes: 0, journalBytes: 0 };
    let eventBytes = 0;
    for (const e of this.#events.get(runId)?.events ?? []) eventBytes += bytes(e.data);
    let journalBytes = 0;
    for (const value of this.#journal.get(runId)?.values() ?? []) journalBytes += bytes(value);
    let snapshotBytes = bytes(held.snapshot);
    for (const step of held.steps) snapshotBytes += bytes(step);
    return { snapshotBytes, eventBytes, journalBytes };
  }

  /** Forgets a run, its events and its journal (its specialists' too); false if there was no such run. */
  deleteRun(runId: string): boolean {
    this.#finished.delete(runId);
    for (const map of [this.#events, this.#journal]) {
      map.delete(runId);
      // Specialists' entries are under `<run>/<kind>[n]` ids.
      for (const id of map.keys()) if (id.startsWith(`${runId}/`)) map.delete(id);
    }
    return this.#runs.delete(runId);
  }

  /** Drops every run. */
  async close(): Promise<void> {
    this.#runs.clear();
    this.#events.clear();
    this.#journal.clear();
    this.#finished.clear();
  }

  /** Refuses events whose sequence numbers are taken, before anything changes (all or nothing, as in one SQL transaction). */
  #checkEvents(events: readonly StoredEvent[]): void {
    const seen = new Set<string>();
    for (const e of events) {
      const key = `${e.runId}\u0000${e.seq}`;
      if (seen.has(key) || this.#events.get(e.runId)?.seqs.has(e.seq) === true) {
        throw new StoreError(`cannot append event ${e.seq} to run ${e.runId}: that sequence number is already stored`, { code: 'run_conflict' });
      }
      seen.add(key);
    }
  }

  /** Appends checked events to their logs, kept sorted by sequence number. */
  #appendEvents(events: readonly StoredEvent[], data: readonly string[]): void {
    const unsorted = new Set<HeldEvent[]>();
    events.forEach((e, i) => {
      let log = this.#events.get(e.runId);
      if (log === undefined) this.#events.set(e.runId, (log = { events: [], seqs: new Set() }));
      // Appending in order keeps the log sorted; anything else is sorted once below.
      if (log.events.length > 0 && log.events[log.events.length - 1]!.seq > e.seq) unsorted.add(log.events);
      log.events.push({ seq: e.seq, type: e.type, at: e.at, data: data[i]! });
      log.seqs.add(e.seq);
    });
    for (const log of unsorted) log.sort((a, b) => a.seq - b.seq);
  }

  /**
   * Keeps at most `maxFinishedRuns` finished runs: the oldest to finish goes first. A failed run an
   * operator retries (`retryRun`: failed → running) is not finished any more, so it cannot be dropped
   * while it runs; when it ends again it is the newest to finish.
   */
  #noteFinished(runId: string, status: RunRecord['status']): void {
    if (!FINISHED_STATUSES.has(status)) {
      this.#finished.delete(runId);
      return;
    }
    if (this.#finished.has(runId)) return;
    this.#finished.add(runId);
    while (this.#finished.size > this.#maxFinished) {
      const oldest = this.#finished.values().next().value as string;
      this.deleteRun(oldest);
    }
  }
}

function toRecord(held: Held): RunRecord {
  const snapshot = held.snapshot === null ? null : decodeStored(held.snapshot);
  return { ...held.record, snapshot: held.steps.length === 0 ? snapshot : withSteps(snapshot, held.steps, held.record.runId), error: held.error === null ? null : (JSON.parse(held.error) as RunRecord['error']) };
}

/**
 * The in-process store of runs started without a store: a run that waits at a human node keeps
 * its snapshot here (the last 1,000 finished runs are kept too), so
 * `resumeRun(graph, runId, { reply })` without a store continues it in the same process.
 */
export const defaultMemoryStore = new MemoryRunStore({ maxFinishedRuns: 1_000 });
