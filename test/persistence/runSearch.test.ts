import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { InputError, PostgresRunStore, SqliteRunStore, type RunStore } from '../../src/index.js';
import { memoryTarget, PG_URL, postgresTarget, sqliteTarget, useStoreTarget, type StoreTarget } from './storeTargets.js';

/** Runs whose inputs and answers hold the characters a LIKE pattern or an SQL string would read as syntax. */
const RUNS: Array<{ id: string; graph: string; input: unknown; answer: string | null; status?: 'completed' | 'failed' }> = [
  { id: 'run-percent', graph: 'desk', input: 'Am I 100% covered?', answer: 'Yes.' },
  { id: 'run-underscore', graph: 'desk', input: 'order_id SO1', answer: null },
  { id: 'run-plain', graph: 'desk', input: 'order id SO2 please', answer: 'Refund: 599 CNY', status: 'failed' },
  { id: 'run-quotes', graph: 'desk', input: `it's "quoted" \\ back`, answer: null },
  { id: 'run-unicode', graph: 'intl', input: 'Rückgabe für Café 東京 😀', answer: 'naïve answer' },
  { id: 'run-injection', graph: 'intl', input: "x'); DROP TABLE runs; --", answer: null },
  { id: 'run-json', graph: 'intl', input: { question: 'structured 50%' }, answer: null },
];

async function seed(store: RunStore): Promise<void> {
  for (const run of RUNS) {
    const snapshot = { status: 'active', value: 'n', context: { request: { input: run.input }, state: {}, path: [], steps: 0 } };
    const record = await store.insertRun({ runId: run.id, graphName: run.graph, graphHash: 'h', status: 'running', owner: null, leaseExpiresAt: null, snapshot });
    // The answer and status change later, as a run's do; the input is the one it started with.
    await store.updateRun(run.id, record.version, { status: run.status ?? 'completed', outputText: run.answer, snapshot: { ...snapshot, context: { ...snapshot.context, request: { input: 'a later request' } } } });
  }
}

const ids = async (store: RunStore, filter: Parameters<RunStore['listRuns']>[0]) => (await store.listRuns(filter)).map((r) => r.runId).sort();

const targets: Array<[string, () => StoreTarget]> = [
  ['memory', memoryTarget],
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
];

describe.each(targets)('listRuns({ search }) on %s', (_name, make) => {
  const target = useStoreTarget(make);

  it('matches LIKE wildcards, backslashes and quotes literally', async () => {
    const { store } = target();
    await seed(store);
    expect(await ids(store, { search: '%' })).toEqual(['run-json', 'run-percent']);
    expect(await ids(store, { search: '100%' })).toEqual(['run-percent']);
    expect(await ids(store, { search: '_' })).toEqual(['run-underscore']);
    expect(await ids(store, { search: 'order_id' })).toEqual(['run-underscore']);
    expect(await ids(store, { search: '\\' })).toEqual(['run-quotes']);
    expect(await ids(store, { search: `it's "quoted"` })).toEqual(['run-quotes']);
    expect(await ids(store, { search: '%_%' })).toEqual([]);
  });

  it('finds by run id, by the input it started with and by its answer, A-Z in any case, and never by a later request', async () => {
    const { store } = target();
    await seed(store);
    expect(await ids(store, { search: 'RUN-PLAIN' })).toEqual(['run-plain']);
    expect(await ids(store, { search: 'SO2 PLEASE' })).toEqual(['run-plain']);
    expect(await ids(store, { search: 'refund: 599' })).toEqual(['run-plain']);
    expect(await ids(store, { search: 'a later request' })).toEqual([]);
    // An input that is not text is searched as its JSON.
    expect(await ids(store, { search: '"question":"structured' })).toEqual(['run-json']);
  });

  it('matches Unicode text as it is (only A-Z fold), emoji included', async () => {
    const { store } = target();
    await seed(store);
    expect(await ids(store, { search: 'café 東京 😀' })).toEqual(['run-unicode']);
    expect(await ids(store, { search: 'CAFÉ' })).toEqual([]);
    expect(await ids(store, { search: 'Café' })).toEqual(['run-unicode']);
    expect(await ids(store, { search: 'rückgabe' })).toEqual(['run-unicode']);
    expect(await ids(store, { search: 'NAÏVE' })).toEqual([]);
  });

  it('takes SQL in the text as text: nothing is dropped', async () => {
    const { store } = target();
    await seed(store);
    expect(await ids(store, { search: "'); DROP TABLE runs; --" })).toEqual(['run-injection']);
    expect(await ids(store, { search: "' OR '1'='1" })).toEqual([]);
    expect(await store.listRuns()).toHaveLength(RUNS.length);
  });

  it('combines the search with status, graph and limit', async () => {
    const { store } = target();
    await seed(store);
    expect(await ids(store, { search: 'order', status: 'failed' })).toEqual(['run-plain']);
    expect(await ids(store, { search: 'order', status: 'completed' })).toEqual(['run-underscore']);
    expect(await ids(store, { search: '%', graphName: 'intl' })).toEqual(['run-json']);
    expect(await store.listRuns({ search: 'run-', limit: 2 })).toHaveLength(2);
  });

  it('refuses a blank, control-character, malformed or oversized search with invalid_input', async () => {
    const { store } = target();
    for (const search of ['', '   ', 'a\u0000b', 'tab\there', 'lone \ud800', 'x'.repeat(201)]) {
      const refused = await store.listRuns({ search }).then(() => null, (e: unknown) => e);
      expect(refused, JSON.stringify(search)).toBeInstanceOf(InputError);
      expect((refused as InputError).code).toBe('invalid_input');
    }
  });
});

describe('a runs table made before the input column existed', () => {
  const OLD_RUNS = `CREATE TABLE runs (run_id TEXT PRIMARY KEY, graph_name TEXT NOT NULL, graph_hash TEXT NOT NULL, schema_version INTEGER NOT NULL,
    status TEXT NOT NULL, snapshot TEXT, version INTEGER NOT NULL, owner TEXT, lease_expires_at BIGINT, wait_reason TEXT, output_text TEXT,
    error TEXT, last_seq INTEGER NOT NULL DEFAULT 0, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)`;
  const OLD_ROW = `INSERT INTO runs (run_id, graph_name, graph_hash, schema_version, status, version, output_text, created_at, updated_at)
    VALUES ('old-run', 'desk', 'h', 1, 'completed', 1, 'old answer', 1, 1)`;

  async function expectSearchable(store: RunStore): Promise<void> {
    await store.insertRun({ runId: 'new-run', graphName: 'desk', graphHash: 'h', status: 'running', owner: null, leaseExpiresAt: null, snapshot: { context: { request: { input: 'new input' } } } });
    expect(await ids(store, { search: 'new input' })).toEqual(['new-run']);
    // The old row is found by its answer and id.
    expect(await ids(store, { search: 'old answer' })).toEqual(['old-run']);
    expect(await ids(store, { search: 'run' })).toEqual(['new-run', 'old-run']);
  }

  it('gets the column when SQLite opens it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-old-')), 'runs.db');
    const db = new Database(file);
    db.exec(OLD_RUNS);
    db.exec(OLD_ROW);
    db.close();
    const store = new SqliteRunStore({ file });
    try {
      await expectSearchable(store);
    } finally {
      await store.close();
    }
    // Opened again, nothing is added twice.
    await new SqliteRunStore({ file }).close();
  });

  it('gets the column when PostgreSQL opens it', async () => {
    const schema = `t_old_${process.pid}_${Date.now().toString(36)}`;
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.query(`SET search_path TO ${schema}`);
      await client.query(OLD_RUNS);
      await client.query(OLD_ROW);
    } finally {
      await client.end();
    }
    const store = new PostgresRunStore({ url: PG_URL, schema, max: 2 });
    try {
      await expectSearchable(store);
    } finally {
      await store.close();
    }
  });
});
