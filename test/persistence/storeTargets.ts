import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, inject } from 'vitest';
import { MemoryRunStore, PostgresRunStore, SqliteRunStore, type RunStore } from '../../src/index.js';

/** A store under test, with a way to read every byte it holds and the env a child process needs to reach it. */
export interface StoreTarget {
  store: RunStore;
  /** Everything stored, as text (file bytes for SQLite, every row for PostgreSQL). */
  dump(): Promise<string>;
  /** Environment for a child process that should open the same store. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * The PostgreSQL server the tests use: SWITCHBOARD_TEST_DATABASE_URL (`.ci/run` sets it) or, without
 * it, the embedded server test/support/globalSetup.ts starts for the run. Always set.
 */
export const PG_URL: string = inject('postgresUrl');

export function sqliteTarget(): StoreTarget {
  const dir = mkdtempSync(join(tmpdir(), 'sb-store-'));
  const file = join(dir, 'runs.db');
  const store = new SqliteRunStore({ file });
  return {
    store,
    env: { SWITCHBOARD_DB: file, SWITCHBOARD_DATABASE_URL: '' },
    dump: async () => [file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f).toString('latin1')).join('\n'),
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A store in this process's memory; `dump` is every run and event it holds, as JSON. */
export function memoryTarget(): StoreTarget {
  const store = new MemoryRunStore();
  return {
    store,
    env: {},
    dump: async () => {
      const runs = await store.listRuns({ limit: 1_000_000 });
      return JSON.stringify(await Promise.all(runs.map(async (run) => ({ run, events: await store.listEvents(run.runId) }))));
    },
    close: () => store.close(),
  };
}

let schemaCounter = 0;

export function postgresTarget(): StoreTarget {
  const schema = `t_${process.pid}_${Date.now().toString(36)}_${schemaCounter++}`;
  const store = new PostgresRunStore({ url: PG_URL, schema, max: 4 });
  return {
    store,
    env: { SWITCHBOARD_DATABASE_URL: PG_URL, SWITCHBOARD_DATABASE_SCHEMA: schema, SWITCHBOARD_DB: '' },
    dump: async () => {
      const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` });
      await client.connect();
      try {
        const parts: string[] = [];
        for (const table of ['runs', 'events', 'journal']) parts.push(JSON.stringify((await client.query(`SELECT * FROM ${table}`)).rows));
        return parts.join('\n');
      } finally {
        await client.end();
      }
    },
    close: () => store.close(),
  };
}

/** A fresh store target for each test of the enclosing `describe`, closed after it. */
export function useStoreTarget(makeTarget: () => StoreTarget): () => StoreTarget {
  let target: StoreTarget | undefined;
  beforeEach(() => {
    target = makeTarget();
  });
  afterEach(async () => {
    await target?.close();
    target = undefined;
  });
  return () => {
    if (target === undefined) throw new Error('useStoreTarget(): the store exists only inside a test');
    return target;
  };
}

/**
 * Opens stores on demand inside the tests of one file and closes each after the test that opened
 * it. `null` stands for a run without a store and gives `undefined`.
 */
export function storesClosedAfterEach(): {
  (make: () => StoreTarget): RunStore;
  (make: (() => StoreTarget) | null): RunStore | undefined;
} {
  const open: StoreTarget[] = [];
  afterEach(async () => {
    for (const target of open.splice(0)) await target.close();
  });
  return ((make: (() => StoreTarget) | null) => {
    if (make === null) return undefined;
    const target = make();
    open.push(target);
    return target.store;
  }) as { (make: () => StoreTarget): RunStore; (make: (() => StoreTarget) | null): RunStore | undefined };
}
