import { describe, expect, it } from 'vitest';
import { PostgresRunStore } from '../../src/index.js';
import { runStoreContract } from './runStoreContract.js';
import { durableContract } from '../graph/durable/durableContract.js';
import { PG_URL, postgresTarget } from './storeTargets.js';
import { storeEncodingContract } from './storeEncodingContract.js';

describe('PostgresRunStore', () => {
  runStoreContract('PostgresRunStore', postgresTarget);
  durableContract('PostgresRunStore', postgresTarget);
  let schemas = 0;
  storeEncodingContract('PostgresRunStore', (options) => new PostgresRunStore({ url: PG_URL, schema: `enc_${process.pid}_${Date.now().toString(36)}_${schemas++}`, max: 2, ...options }));
});

describe('PostgresRunStore configuration', () => {
  it('needs a postgres:// URL and a plain schema name', () => {
    expect(() => new PostgresRunStore({ url: 'http://x' })).toThrow(/postgres:\/\/ URL/);
    expect(() => new PostgresRunStore({ url: 'postgres://x', schema: 'Bad-Name' })).toThrow(/lower-case SQL identifier/);
  });

  it('reports an unreachable server without its password', async () => {
    const store = new PostgresRunStore({ url: 'postgres://u:secretpw@127.0.0.1:9/db' });
    const error = await store.getRun('x').catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ code: 'store_unavailable', retryable: true });
    expect((error as Error).message).toContain('is the server running?');
    expect((error as Error).message).not.toContain('secretpw');
    await store.close();
  });
});
