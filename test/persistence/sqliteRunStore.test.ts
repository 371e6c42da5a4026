import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteRunStore, defaultSqliteFile, createStoreFromEnv, PostgresRunStore, StateGraph, type StoredEvent } from '../../src/index.js';
import { runStoreContract } from './runStoreContract.js';
import { durableContract } from '../graph/durable/durableContract.js';
import { sqliteTarget } from './storeTargets.js';
import { storeEncodingContract } from './storeEncodingContract.js';

runStoreContract('SqliteRunStore', sqliteTarget);
durableContract('SqliteRunStore', sqliteTarget);
storeEncodingContract('SqliteRunStore', (options) => new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-enc-')), 'runs.db'), ...options }));

describe('SqliteRunStore configuration', () => {
  it('defaults to .switchboard/switchboard.db under the working directory, or SWITCHBOARD_DB', () => {
    const saved = process.env.SWITCHBOARD_DB;
    try {
      delete process.env.SWITCHBOARD_DB;
      expect(defaultSqliteFile('/srv/app')).toBe('/srv/app/.switchboard/switchboard.db');
      process.env.SWITCHBOARD_DB = 'data/runs.db';
      expect(defaultSqliteFile('/srv/app')).toBe('/srv/app/data/runs.db');
    } finally {
      if (saved === undefined) delete process.env.SWITCHBOARD_DB;
      else process.env.SWITCHBOARD_DB = saved;
    }
  });

  it('uses WAL and creates missing directories', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-')), 'nested', 'dir', 'runs.db');
    const store = new SqliteRunStore({ file });
    expect(store.file).toBe(file);
    await store.close();
  });

  it('reports an unusable path clearly', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-'));
    const notADirectory = join(dir, 'plain-file');
    writeFileSync(notADirectory, 'x');
    expect(() => new SqliteRunStore({ file: join(notADirectory, 'runs.db') })).toThrow(/cannot open the SQLite run store at .*SWITCHBOARD_DB/);
  });

  it('picks the store from the environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-'));
    const sqlite = createStoreFromEnv({ SWITCHBOARD_DB: join(dir, 'x.db') });
    expect(sqlite).toBeInstanceOf(SqliteRunStore);
    await sqlite.close();
    const postgres = createStoreFromEnv({ SWITCHBOARD_DATABASE_URL: 'postgres://u:pw@127.0.0.1:1/db' });
    expect(postgres).toBeInstanceOf(PostgresRunStore);
    expect((postgres as PostgresRunStore).url).not.toContain('pw');
    await postgres.close();
    expect(() => createStoreFromEnv({ SWITCHBOARD_DATABASE_URL: 'mysql://x' })).toThrow(/must be a postgres:\/\/ URL/);
  });
});

describe('SqliteRunStore event log', () => {
  it('writes the events of one commit as one row, a long value in them once, and reads rows written one event each', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-ev-')), 'runs.db');
    const store = new SqliteRunStore({ file });
    await store.insertRun({ runId: 'r', graphName: 'g', graphHash: 'h', status: 'running', owner: null, leaseExpiresAt: null });
    const long = 'z'.repeat(5000);
    const event = (seq: number): StoredEvent => ({ runId: 'r', seq, type: 'node.completed', at: seq, data: { type: 'node.completed', seq, at: seq, text: long } });
    expect(await store.updateRun('r', 1, { lastSeq: 3 }, [event(1), event(2), event(3)])).toBe(2);
    const db = new Database(file);
    try {
      expect(db.prepare('SELECT seq, type FROM events WHERE run_id = ?').all('r')).toEqual([{ seq: 3, type: 'events' }]);
      expect((await store.sizeOf('r')).eventBytes).toBeLessThan(2 * long.length);
      // A row holding one event, as stores wrote every event before batching, reads back beside the batch.
      db.prepare('INSERT INTO events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)').run('r', 4, 'run.completed', 4, JSON.stringify({ type: 'run.completed', seq: 4 }));
      expect(await store.listEvents('r')).toEqual([event(1), event(2), event(3), { runId: 'r', seq: 4, type: 'run.completed', at: 4, data: { type: 'run.completed', seq: 4 } }]);
      expect((await store.listEvents('r', { afterSeq: 2, limit: 1 })).map((e) => e.seq)).toEqual([3]);
    } finally {
      db.close();
      await store.close();
    }
  });

  it('stores a 1,000-step run in far fewer event rows than events, every event readable in order', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-ev-')), 'runs.db');
    const store = new SqliteRunStore({ file });
    const step = (ctx: { get<T>(k: string): T | undefined; put(k: string, v: unknown): void }) => {
      ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
      return null;
    };
    const graph = new StateGraph({ name: 'loop', maxSteps: 1000 }).addNode('a', step).addNode('b', step).start('a').addEdge('a', 'b').addEdge('b', 'a');
    const run = await graph.run('go', { store });
    const events = await store.listEvents(run.runId);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    expect(events.filter((e) => e.type === 'node.completed')).toHaveLength(1000);
    const db = new Database(file, { readonly: true });
    try {
      const rows = (db.prepare('SELECT COUNT(*) AS n FROM events WHERE run_id = ?').get(run.runId) as { n: number }).n;
      expect(rows).toBeLessThan(events.length / 10);
    } finally {
      db.close();
      await store.close();
    }
  });
});
