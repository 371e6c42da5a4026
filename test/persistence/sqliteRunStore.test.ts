import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore, defaultSqliteFile, createStoreFromEnv, PostgresRunStore } from '../../src/index.js';
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
