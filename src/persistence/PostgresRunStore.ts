import { createRequire } from 'node:module';
import type pg from 'pg';
import type { NewRun, RunFilter, RunPatch, RunRecord, RunStore, StepRecord, StoredEvent } from './RunStore.js';
import { decodeStepRecord, encodeStepRecord } from './stepRecordRows.js';
import { safeConnectionUrl } from '../errors/safeConnectionUrl.js';
import { StoreError } from './StoreError.js';
import { decodeStored } from './storedJson.js';
import { eventRows, firstSeqs, readEventRows, seqConflict, type ReadEventRow, type RunSeqs } from './eventRows.js';
import { checkValueLimit, encodeJournalValue, joinSteps, newRunColumns, parseStored, patchColumns, rowToRecord, withSteps, type RunRow } from './storeRows.js';
import { RUN_STORE_SCHEMA } from './storeSchema.js';
import { checkSearch, LIKE_ESCAPE, likeContains } from './runSearch.js';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';

/** Options for {@link PostgresRunStore}. */
export interface PostgresRunStoreOptions {
  /** A `postgres://` URL (default `$SWITCHBOARD_DATABASE_URL`). */
  url?: string;
  /** A schema to keep the tables in (created if missing; default `public`). */
  schema?: string;
  /** Pool size (default 10). */
  max?: number;
  now?: () => number;
  /** The most bytes one stored value (a snapshot, an event, a journal entry) may take (default 16 MiB). */
  maxValueBytes?: number;
}

/**
 * `pg` (a CommonJS package of some 30 modules) is required when the first store is constructed, so
 * a process on the SQLite store never loads it. It is the same module instance `import 'pg'` gives.
 */
const requirePg = (): typeof pg => createRequire(import.meta.url)('pg') as typeof pg;

/**
 * The condition a write's events are stored under: no run's log holds a row at or after the first
 * seq the write brings for it (one index probe per run). The engine writes a run's events in
 * order, and a row holding several events is keyed by the last one only, so its key alone would
 * not collide. Kept to plain `NOT EXISTS` probes: the statement is planned at every write.
 */
function seqGuard(firsts: RunSeqs, params: unknown[]): string {
  const probes = [...firsts].map(([runId, { first }]) => `NOT EXISTS (SELECT 1 FROM events WHERE run_id = $${params.push(runId)} AND seq >= $${params.push(first)})`);
  return probes.length === 0 ? 'true' : probes.join(' AND ');
}

/** The error for a write {@link seqGuard} stopped, naming the run and what its log holds (read again: this path is rare). */
async function takenConflict(firsts: RunSeqs, query: (sql: string, params: unknown[]) => Promise<pg.QueryResult<{ held: number | null }>>): Promise<StoreError> {
  for (const [runId, { first }] of firsts) {
    const held = (await query('SELECT max(seq) AS held FROM events WHERE run_id = $1 AND seq >= $2', [runId, first])).rows[0]?.held;
    if (held !== null && held !== undefined) return seqConflict(runId, first, `its log holds events up to ${held}`);
  }
  const [runId, { first }] = [...firsts][0]!;
  return seqConflict(runId, first, 'its log holds an event at or after it');
}

/**
 * The shared run store for several machines: PostgreSQL through `pg`, with the same tables and
 * behaviour as {@link SqliteRunStore}. Compare-and-set writes rely on row locks, so two processes
 * resuming the same run cannot both win.
 *
 * @example
 * const store = new PostgresRunStore({ url: 'postgres://postgres@127.0.0.1:5432/switchboard' });
 */
export class PostgresRunStore implements RunStore {
  readonly #pool: pg.Pool;
  readonly #now: () => number;
  readonly #schema: string;
  readonly #limit: number;
  #ready: Promise<void> | null = null;

  constructor(options: PostgresRunStoreOptions = {}) {
    const url = options.url ?? process.env.SWITCHBOARD_DATABASE_URL;
    if (url === undefined || !/^postgres(ql)?:\/\//.test(url)) {
      throw new StoreError('PostgresRunStore needs a postgres:// URL: pass { url } or set SWITCHBOARD_DATABASE_URL', { code: 'store_config' });
    }
    const schema = options.schema ?? 'public';
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) {
      throw new StoreError(`schema must be a lower-case SQL identifier; received ${JSON.stringify(schema)}`, { code: 'store_config' });
    }
    this.#schema = schema;
    this.#now = options.now ?? Date.now;
    this.#limit = checkValueLimit('PostgresRunStore', options.maxValueBytes);
    this.maxValueBytes = this.#limit;
    this.#pool = new (requirePg().Pool)({ connectionString: url, max: options.max ?? 10, options: `-c search_path=${schema}` });
    // An idle client's error (server restart) must not crash the process; the next query reports it.
    this.#pool.on('error', () => {});
    this.url = safeConnectionUrl(url);
  }

  /** The connection URL with its password hidden. */
  readonly url: string;

  /** The most bytes one stored value may take. */
  readonly maxValueBytes: number;

  async #query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    this.#ready ??= this.#migrate();
    await this.#ready;
    return this.#run<R>(sql, params);
  }

  async #run<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>(sql, params);
    } catch (cause) {
      const code = (cause as { code?: string }).code;
      throw new StoreError(`PostgreSQL at ${this.url}: ${(cause as Error).message}`, {
        code: code === '23505' ? 'run_conflict' : 'store_unavailable',
        retryable: code !== '23505',
        cause,
      });
    }
  }

  async #migrate(): Promise<void> {
    const client = await this.#pool.connect().catch((cause: unknown) => {
      this.#ready = null;
      throw new StoreError(`cannot connect to PostgreSQL at ${this.url}: ${(cause as Error).message}; is the server running?`, {
        code: 'store_unavailable',
        retryable: true,
        cause,
      });
    });
    try {
      // One migrator at a time: concurrent CREATE TABLE IF NOT EXISTS can still collide in PostgreSQL.
      await client.query('SELECT pg_advisory_lock(7214001)');
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.#schema}`);
      await client.query(RUN_STORE_SCHEMA.postgres);
    } finally {
      await client.query('SELECT pg_advisory_unlock(7214001)').catch(() => {});
      client.release();
    }
  }

  async insertRun(run: NewRun): Promise<RunRecord> {
    const cols = newRunColumns(run, this.#now(), this.#limit);
    const names = Object.keys(cols);
    const res = await this.#query<RunRow>(
      `INSERT INTO runs (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING *`,
      Object.values(cols),
    );
    return rowToRecord(res.rows[0]!);
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const res = await this.#query<RunRow>('SELECT * FROM runs WHERE run_id = $1', [runId]);
    return res.rows[0] === undefined ? null : this.#toRecord(res.rows[0]);
  }

  /** A row as a record, its snapshot brought up to date with the step records written since. */
  async #toRecord(row: RunRow): Promise<RunRecord> {
    const record = rowToRecord(row);
    const steps = await this.#query<{ data: string }>('SELECT data FROM steps WHERE run_id = $1 ORDER BY n', [row.run_id]);
    if (steps.rows.length > 0) record.snapshot = withSteps(record.snapshot, steps.rows.map((r) => r.data), row.run_id);
    return record;
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.status !== undefined) where.push(`status = $${params.push(filter.status)}`);
    if (filter.graphName !== undefined) where.push(`graph_name = $${params.push(filter.graphName)}`);
    const search = checkSearch(filter);
    if (search !== undefined) {
      // translate() folds A–Z only, as the other stores do (lower() would fold other letters too); the pattern's wildcards are escaped.
      const pattern = `$${params.push(likeContains(search))}`;
      where.push(`(${['run_id', 'input_text', 'output_text'].map((c) => `translate(${c}, '${UPPER}', '${LOWER}') LIKE ${pattern} ESCAPE '${LIKE_ESCAPE}'`).join(' OR ')})`);
    }
    const limit = `$${params.push(filter.limit ?? 100)}`;
    const res = await this.#query<RunRow>(
      `SELECT * FROM runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, run_id LIMIT ${limit}`,
      params,
    );
    return Promise.all(res.rows.map((row) => this.#toRecord(row)));
  }

  async updateRun(runId: string, expectedVersion: number, patch: RunPatch, events: StoredEvent[] = []): Promise<number | null> {
    const cols = patchColumns(patch, this.#limit, runId);
    const rows = eventRows(events, this.#limit);
    const firsts = firstSeqs(events);
    const params: unknown[] = cols.map(([, v]) => v);
    const sets = [...cols.map(([c], i) => `${c} = $${i + 1}`), 'version = version + 1', `updated_at = $${params.push(this.#now())}`];
    const update = `UPDATE runs SET ${sets.join(', ')} WHERE run_id = $${params.push(runId)} AND version = $${params.push(expectedVersion)} RETURNING version`;
    if (events.length === 0 && patch.snapshot === undefined) {
      const res = await this.#query<{ version: number }>(update, params);
      return res.rows[0] === undefined ? null : res.rows[0].version;
    }
    return this.#transaction(async (client) => {
      const res = await client.query<{ version: number }>(update, params);
      if (res.rows[0] === undefined) return null;
      // A new snapshot holds everything the step records said.
      if (patch.snapshot !== undefined) await client.query('DELETE FROM steps WHERE run_id = $1', [runId]);
      if (rows.length === 0) return res.rows[0].version;
      const eventParams: unknown[] = [];
      const values = rows.map(
        (e) => `($${eventParams.push(e.runId)}::text, $${eventParams.push(e.seq)}::integer, $${eventParams.push(e.type)}::text, $${eventParams.push(e.at)}::bigint, $${eventParams.push(e.data)}::text)`,
      );
      const guard = seqGuard(firsts, eventParams);
      const inserted = await client.query(`INSERT INTO events (run_id, seq, type, at, data) SELECT * FROM (VALUES ${values.join(', ')}) AS v WHERE ${guard}`, eventParams);
      if ((inserted.rowCount ?? 0) === 0) throw await takenConflict(firsts, (sql, p) => client.query(sql, p));
      return res.rows[0].version;
    });
  }

  async appendSteps(runId: string, expectedVersion: number, steps: readonly string[], events: StoredEvent[] = []): Promise<boolean> {
    const text = joinSteps(runId, steps, this.#limit);
    const rows = eventRows(events, this.#limit);
    const params: unknown[] = [runId, expectedVersion, text];
    // One statement, so one round trip and one transaction: the run's row is locked against a
    // concurrent compare-and-set (FOR SHARE) and read, never written; nothing is written when
    // an event's seq is taken.
    const firsts = firstSeqs(events);
    const guard = seqGuard(firsts, params);
    const values = rows.map(
      (e) => `($${params.push(e.runId)}::text, $${params.push(e.seq)}::integer, $${params.push(e.type)}::text, $${params.push(e.at)}::bigint, $${params.push(e.data)}::text)`,
    );
    const insertEvents =
      values.length === 0
        ? ''
        : `, e AS (INSERT INTO events (run_id, seq, type, at, data) SELECT v.run_id, v.seq, v.type, v.at, v.data FROM (VALUES ${values.join(', ')}) AS v(run_id, seq, type, at, data) WHERE EXISTS (SELECT 1 FROM s))`;
    const res = await this.#query<{ n: number; ok: number }>(
      `WITH ok AS (SELECT run_id FROM runs WHERE run_id = $1 AND version = $2 FOR SHARE),
       s AS (INSERT INTO steps (run_id, n, data) SELECT $1, coalesce((SELECT max(n) FROM steps WHERE run_id = $1), 0) + 1, $3 FROM ok WHERE ${guard} RETURNING n)${insertEvents}
       SELECT count(*)::int AS n, (SELECT count(*)::int FROM ok) AS ok FROM s`,
      params,
    );
    const row = res.rows[0];
    // A stale version is a lost compare-and-set (false), whatever the events; at the right version, nothing written means a seq was taken.
    if (row !== undefined && row.n === 0 && row.ok > 0) throw await takenConflict(firsts, (sql, p) => this.#query(sql, p));
    return (row?.n ?? 0) > 0;
  }

  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T | null>): Promise<T | null> {
    this.#ready ??= this.#migrate();
    await this.#ready;
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query(result === null ? 'ROLLBACK' : 'COMMIT');
      return result;
    } catch (cause) {
      await client.query('ROLLBACK').catch(() => {});
      if (cause instanceof StoreError) throw cause;
      const conflict = (cause as { code?: string }).code === '23505';
      throw new StoreError(`PostgreSQL at ${this.url}: ${(cause as Error).message}`, { code: conflict ? 'run_conflict' : 'store_unavailable', retryable: !conflict, cause });
    } finally {
      client.release();
    }
  }

  async renewLease(runId: string, owner: string, expiresAt: number): Promise<boolean> {
    const res = await this.#query("UPDATE runs SET lease_expires_at = $1 WHERE run_id = $2 AND owner = $3 AND status = 'running'", [expiresAt, runId, owner]);
    return (res.rowCount ?? 0) > 0;
  }

  async listEvents(runId: string, options: { afterSeq?: number; limit?: number } = {}): Promise<StoredEvent[]> {
    const afterSeq = options.afterSeq ?? 0;
    const limit = options.limit ?? 1_000_000;
    // A row holds one or more events and is keyed by its last: `limit` rows hold at least `limit` events after `afterSeq`.
    // `seq` is an integer column; the bound is compared as a bigint, so a client's Last-Event-ID past
    // 2^31 - 1 reads nothing instead of failing the query (out of range for type integer).
    const res = await this.#query<ReadEventRow>('SELECT run_id, seq, type, at, data FROM events WHERE run_id = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3', [runId, afterSeq, limit]);
    return readEventRows(res.rows, afterSeq, limit);
  }

  async getJournal(runId: string, step: number, key: string): Promise<{ value: unknown } | undefined> {
    const res = await this.#query<{ value: string }>('SELECT value FROM journal WHERE run_id = $1 AND step = $2 AND call_key = $3', [runId, step, key]);
    return res.rows[0] === undefined ? undefined : { value: parseStored(res.rows[0].value, `journal entry "${key}" of run ${runId}`, decodeStored) };
  }

  async putJournal(runId: string, step: number, key: string, value: unknown): Promise<void> {
    const text = encodeJournalValue(runId, step, key, value, this.#limit);
    await this.#query('INSERT INTO journal (run_id, step, call_key, value, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING', [
      runId,
      step,
      key,
      text,
      this.#now(),
    ]);
  }

  async putStepRecord(record: StepRecord): Promise<void> {
    const text = encodeStepRecord(record, this.#limit);
    await this.#query(
      'INSERT INTO step_runs (run_id, step_key, step, data) VALUES ($1, $2, $3, $4) ON CONFLICT (run_id, step_key) DO UPDATE SET step = EXCLUDED.step, data = EXCLUDED.data',
      [record.runId, record.key, record.step, text],
    );
  }

  async listStepRecords(runId: string): Promise<StepRecord[]> {
    const res = await this.#query<{ data: string }>('SELECT data FROM step_runs WHERE run_id = $1 ORDER BY step, step_key', [runId]);
    return res.rows.map((row) => decodeStepRecord(row.data, runId));
  }

  async deleteStepRecords(runId: string, keys: readonly string[]): Promise<void> {
    if (keys.length > 0) await this.#query('DELETE FROM step_runs WHERE run_id = $1 AND step_key = ANY($2)', [runId, [...keys]]);
  }

  async sizeOf(runId: string): Promise<{ snapshotBytes: number; eventBytes: number; journalBytes: number }> {
    const one = async (sql: string) => Number((await this.#query<{ n: string | null }>(sql, [runId])).rows[0]?.n ?? 0);
    return {
      snapshotBytes:
        (await one('SELECT octet_length(snapshot) AS n FROM runs WHERE run_id = $1')) + (await one('SELECT sum(octet_length(data)) AS n FROM steps WHERE run_id = $1')),
      eventBytes: await one('SELECT sum(octet_length(data)) AS n FROM events WHERE run_id = $1'),
      journalBytes: await one('SELECT sum(octet_length(value)) AS n FROM journal WHERE run_id = $1'),
    };
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
