import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { NewRun, RunFilter, RunPatch, RunRecord, RunStore, StepRecord, StoredEvent } from './RunStore.js';
import { decodeStepRecord, encodeStepRecord } from './stepRecordRows.js';
import { StoreError } from './StoreError.js';
import { decodeStored } from './storedJson.js';
import { eventRows, firstSeqs, readEventRows, seqConflict, type EventRow, type RunSeqs, type ReadEventRow } from './eventRows.js';
import { checkValueLimit, encodeJournalValue, joinSteps, newRunColumns, newRunRecord, parseStored, patchColumns, rowToRecord, withSteps, type RunRow } from './storeRows.js';
import { openSqliteFile } from './openSqliteFile.js';
import { checkSearch, LIKE_ESCAPE, likeContains } from './runSearch.js';

/** Options for {@link SqliteRunStore}. */
export interface SqliteRunStoreOptions {
  /** Database file. Default: `$SWITCHBOARD_DB`, else `.switchboard/switchboard.db` under the working directory. */
  file?: string;
  /** Time source (default `Date.now`). */
  now?: () => number;
  /** The most bytes one stored value (a snapshot, an event, a journal entry) may take (default 16 MiB). */
  maxValueBytes?: number;
}

/** The file a SQLite store uses when none is given. */
export function defaultSqliteFile(cwd: string = process.cwd()): string {
  const fromEnv = process.env.SWITCHBOARD_DB;
  return fromEnv !== undefined && fromEnv !== '' ? resolve(cwd, fromEnv) : resolve(cwd, '.switchboard', 'switchboard.db');
}

/**
 * The embedded run store: one SQLite file (better-sqlite3, WAL, `synchronous=NORMAL`), safe for
 * several processes on one machine. A write acknowledged before a crash of the process is kept.
 *
 * @example
 * const store = new SqliteRunStore(); // .switchboard/switchboard.db
 * const run = await graph.run('hello', { store });
 */
export class SqliteRunStore implements RunStore {
  readonly file: string;
  readonly #db: Database.Database;
  readonly #now: () => number;
  readonly #statements = new Map<string, Database.Statement>();
  readonly #limit: number;

  /** The most bytes one stored value may take. */
  readonly maxValueBytes: number;

  constructor(options: SqliteRunStoreOptions = {}) {
    this.file = options.file === undefined ? defaultSqliteFile() : resolve(options.file);
    this.#now = options.now ?? Date.now;
    this.#limit = checkValueLimit('SqliteRunStore', options.maxValueBytes);
    this.maxValueBytes = this.#limit;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      this.#db = openSqliteFile(this.file);
    } catch (cause) {
      throw new StoreError(`cannot open the SQLite run store at ${this.file}: ${(cause as Error).message}; check the path (SWITCHBOARD_DB) and its permissions`, {
        code: 'store_config',
        cause,
      });
    }
  }

  /** Runs a database call; an error from SQLite (closed database, full disk, lock timeout) becomes a StoreError. */
  #guard<T>(what: string, work: () => T): T {
    try {
      return work();
    } catch (cause) {
      if (cause instanceof StoreError) throw cause;
      const code = (cause as { code?: unknown }).code;
      const conflict = typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT');
      throw new StoreError(`SQLite run store at ${this.file}: ${what} failed: ${(cause as Error).message}`, {
        code: conflict ? 'run_conflict' : 'store_unavailable',
        retryable: !conflict,
        cause,
      });
    }
  }

  /** A prepared statement, compiled once per SQL text. */
  #sql(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  async insertRun(run: NewRun): Promise<RunRecord> {
    const cols = newRunColumns(run, this.#now(), this.#limit);
    const names = Object.keys(cols);
    this.#guard(`creating run ${run.runId}`, () => this.#sql(`INSERT INTO runs (${names.join(', ')}) VALUES (${names.map((n) => `@${n}`).join(', ')})`).run(cols));
    // The row as written (a new run has no step records): no read back before the run's first node starts.
    return newRunRecord(cols);
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const row = this.#guard('reading a run', () => this.#sql('SELECT * FROM runs WHERE run_id = ?').get(runId)) as RunRow | undefined;
    return row === undefined ? null : this.#toRecord(row);
  }

  /** A row as a record, its snapshot brought up to date with the step records written since. */
  #toRecord(row: RunRow): RunRecord {
    const record = rowToRecord(row);
    const steps = this.#guard('reading step records', () => this.#sql('SELECT data FROM steps WHERE run_id = ? ORDER BY n').pluck().all(row.run_id)) as string[];
    if (steps.length > 0) record.snapshot = withSteps(record.snapshot, steps, row.run_id);
    return record;
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.status !== undefined) (where.push('status = ?'), params.push(filter.status));
    if (filter.graphName !== undefined) (where.push('graph_name = ?'), params.push(filter.graphName));
    const search = checkSearch(filter);
    if (search !== undefined) {
      // lower() folds A–Z only, as the other stores do; the pattern's wildcards are escaped.
      where.push(`(${['run_id', 'input_text', 'output_text'].map((c) => `lower(${c}) LIKE ? ESCAPE '${LIKE_ESCAPE}'`).join(' OR ')})`);
      params.push(...Array(3).fill(likeContains(search)));
    }
    const sql = `SELECT * FROM runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, run_id LIMIT ?`;
    const rows = this.#guard('listing runs', () => this.#sql(sql).all(...params, filter.limit ?? 100)) as RunRow[];
    return rows.map((row) => this.#toRecord(row));
  }

  async updateRun(runId: string, expectedVersion: number, patch: RunPatch, events: StoredEvent[] = []): Promise<number | null> {
    const cols = patchColumns(patch, this.#limit, runId);
    const rows = eventRows(events, this.#limit);
    const firsts = firstSeqs(events);
    const changed = this.#guard(`writing run ${runId}`, () => {
      const sets = [...cols.map(([c]) => `${c} = ?`), 'version = version + 1', 'updated_at = ?'];
      const update = this.#sql(`UPDATE runs SET ${sets.join(', ')} WHERE run_id = ? AND version = ?`);
      const insert = this.#sql('INSERT INTO events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)');
      // A new snapshot holds everything the step records said.
      const dropSteps = patch.snapshot === undefined ? null : this.#sql('DELETE FROM steps WHERE run_id = ?');
      return this.#db.transaction(() => {
        if (update.run(...cols.map(([, v]) => v), this.#now(), runId, expectedVersion).changes === 0) return false;
        dropSteps?.run(runId);
        this.#checkSeqs(firsts);
        for (const e of rows) insert.run(e.runId, e.seq, e.type, e.at, e.data);
        return true;
      })();
    });
    return changed ? expectedVersion + 1 : null;
  }

  async appendSteps(runId: string, expectedVersion: number, steps: readonly string[], events: StoredEvent[] = []): Promise<boolean> {
    const text = joinSteps(runId, steps, this.#limit);
    const rows = eventRows(events, this.#limit);
    const firsts = firstSeqs(events);
    return this.#guard(`writing run ${runId}`, () => this.#appendTransaction(runId, expectedVersion, text, rows, firsts));
  }

  /**
   * Refuses events at or below a seq their run's log holds (one index probe per run): the engine
   * writes a run's events in order, and a row holding several events is keyed by the last one only.
   */
  #checkSeqs(firsts: RunSeqs): void {
    if (firsts.size === 0) return;
    const held = this.#sql('SELECT max(seq) FROM events WHERE run_id = ? AND seq >= ?').pluck();
    for (const [runId, { first }] of firsts) {
      const at = held.get(runId, first) as number | null;
      if (at !== null) throw seqConflict(runId, first, `its log holds events up to ${at}`);
    }
  }

  /** One transaction for {@link appendSteps}, compiled once. */
  readonly #appendTransaction = (runId: string, expectedVersion: number, text: string, rows: EventRow[], firsts: RunSeqs): boolean => {
    this.#append ??= this.#db.transaction((id: string, version: number, steps: string, list: EventRow[], runs: RunSeqs) => {
      // The version is read, not written: the run's row (and its status index entry) stays as it is.
      const append = this.#sql(
        'INSERT INTO steps (run_id, n, data) SELECT ?, coalesce((SELECT max(n) FROM steps WHERE run_id = ?), 0) + 1, ? WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = ? AND version = ?)',
      );
      if (append.run(id, id, steps, id, version).changes === 0) return false;
      this.#checkSeqs(runs);
      const insert = this.#sql('INSERT INTO events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)');
      for (const e of list) insert.run(e.runId, e.seq, e.type, e.at, e.data);
      return true;
    });
    return this.#append(runId, expectedVersion, text, rows, firsts) as boolean;
  };

  #append: Database.Transaction<(id: string, version: number, steps: string, list: EventRow[], runs: RunSeqs) => boolean> | null = null;

  async renewLease(runId: string, owner: string, expiresAt: number): Promise<boolean> {
    const info = this.#guard('renewing a lease', () => this.#sql("UPDATE runs SET lease_expires_at = ? WHERE run_id = ? AND owner = ? AND status = 'running'").run(expiresAt, runId, owner));
    return info.changes > 0;
  }

  async listEvents(runId: string, options: { afterSeq?: number; limit?: number } = {}): Promise<StoredEvent[]> {
    const afterSeq = options.afterSeq ?? 0;
    const limit = options.limit ?? 1_000_000;
    // A row holds one or more events and is keyed by its last: `limit` rows hold at least `limit` events after `afterSeq`.
    const rows = this.#guard('reading events', () =>
      this.#sql('SELECT run_id, seq, type, at, data FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?').all(runId, afterSeq, limit),
    ) as ReadEventRow[];
    return readEventRows(rows, afterSeq, limit);
  }

  async getJournal(runId: string, step: number, key: string): Promise<{ value: unknown } | undefined> {
    const row = this.#guard('reading the journal', () => this.#sql('SELECT value FROM journal WHERE run_id = ? AND step = ? AND call_key = ?').get(runId, step, key)) as
      | { value: string }
      | undefined;
    return row === undefined ? undefined : { value: parseStored(row.value, `journal entry "${key}" of run ${runId}`, decodeStored) };
  }

  async putJournal(runId: string, step: number, key: string, value: unknown): Promise<void> {
    const text = encodeJournalValue(runId, step, key, value, this.#limit);
    this.#guard('writing the journal', () =>
      this.#sql('INSERT INTO journal (run_id, step, call_key, value, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING').run(runId, step, key, text, this.#now()),
    );
  }

  async putStepRecord(record: StepRecord): Promise<void> {
    const text = encodeStepRecord(record, this.#limit);
    this.#guard('writing a step record', () =>
      this.#sql('INSERT INTO step_runs (run_id, step_key, step, data) VALUES (?, ?, ?, ?) ON CONFLICT (run_id, step_key) DO UPDATE SET step = excluded.step, data = excluded.data').run(
        record.runId,
        record.key,
        record.step,
        text,
      ),
    );
  }

  async listStepRecords(runId: string): Promise<StepRecord[]> {
    const rows = this.#guard('reading step records', () => this.#sql('SELECT data FROM step_runs WHERE run_id = ? ORDER BY step, step_key').all(runId)) as Array<{ data: string }>;
    return rows.map((row) => decodeStepRecord(row.data, runId));
  }

  async deleteStepRecords(runId: string, keys: readonly string[]): Promise<void> {
    const remove = this.#sql('DELETE FROM step_runs WHERE run_id = ? AND step_key = ?');
    this.#guard('deleting step records', () => {
      for (const key of keys) remove.run(runId, key);
    });
  }

  async sizeOf(runId: string): Promise<{ snapshotBytes: number; eventBytes: number; journalBytes: number }> {
    const one = (sql: string) => ((this.#guard('measuring a run', () => this.#sql(sql).get(runId)) as { n: number | null }).n ?? 0);
    return {
      snapshotBytes:
        one('SELECT length(CAST(snapshot AS BLOB)) AS n FROM runs WHERE run_id = ?') + one('SELECT sum(length(CAST(data AS BLOB))) AS n FROM steps WHERE run_id = ?'),
      eventBytes: one('SELECT sum(length(CAST(data AS BLOB))) AS n FROM events WHERE run_id = ?'),
      journalBytes: one('SELECT sum(length(CAST(value AS BLOB))) AS n FROM journal WHERE run_id = ?'),
    };
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
