import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresRunStore, RunQueue, StateGraph, startServer, type RunningServer } from '../../src/index.js';

/**
 * Connection URLs appear in messages with their passwords hidden, also one given in the query
 * (`?password=`), which the PostgreSQL and Redis drivers read as the password.
 *
 * The workbench answers a store failure with the store's message (`store_unavailable`); the message
 * names the PostgreSQL URL, and a password given in its query (`?password=`, which the driver
 * reads as the password) must be hidden there as one in the user-info part is. Port 9 on loopback
 * refuses connections: a real "database down".
 */
const URL_WITH_SECRETS = 'postgres://switchboard@127.0.0.1:9/runs?sslmode=disable&password=s3cret-pw&sslpassword=k3y-pass';
const graph = new StateGraph({ name: 'g' }).addNode('a', () => 'x').start('a');
let store: PostgresRunStore;
let server: RunningServer;

beforeAll(async () => {
  store = new PostgresRunStore({ url: URL_WITH_SECRETS });
  server = await startServer({ store, graphs: [graph], port: 0 });
});

afterAll(async () => {
  await server?.stop();
  await store?.close();
});

describe('a workbench whose PostgreSQL is down', () => {
  it.each([
    ['GET', '/api/runs'],
    ['GET', '/api/runs/some-run'],
    ['POST', '/api/runs'],
  ])('%s %s names the store without the passwords in its URL', async (method, path) => {
    const res = await fetch(new URL(path, server.url), method === 'GET' ? {} : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hi' }) });
    const text = await res.text();
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(JSON.parse(text).error.code).toBe('store_unavailable');
    expect(text).toContain('127.0.0.1:9/runs');
    expect(text).toContain('password=***');
    expect(text).not.toContain('s3cret-pw');
    expect(text).not.toContain('k3y-pass');
  });
});

describe('the Redis URL of the run queue in messages', () => {
  it('hides a password given in the query (ioredis reads ?password= too) as one in the user-info part', () => {
    const queue = new RunQueue({ store, graphs: [graph], redisUrl: 'redis://:user-pw@127.0.0.1:9/0?password=s3cret-pw' });
    expect(queue.redisUrl).toBe('redis://:***@127.0.0.1:9/0?password=***');
  });

  it('names a URL of the wrong scheme without its passwords', () => {
    const refused = (() => {
      try {
        return new RunQueue({ store, graphs: [graph], redisUrl: 'http://127.0.0.1:9/?password=s3cret-pw' });
      } catch (error) {
        return error as Error & { code?: string };
      }
    })();
    expect(refused).toMatchObject({ code: 'queue_config' });
    expect((refused as Error).message).toContain('received http://127.0.0.1:9/?password=***');
  });
});
