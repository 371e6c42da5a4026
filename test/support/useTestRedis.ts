import { afterAll, beforeAll } from 'vitest';
import { startTestRedis, type TestRedis } from './startTestRedis.js';

/**
 * For a describe block: a throwaway redis-server started before its tests and stopped after them,
 * and a list of closers (what a test made: queues, workers, stores) run before it stops, last
 * pushed first. `redis()` gives the server once the block's tests run.
 */
export function useTestRedis(): { redis: () => TestRedis; closers: Array<() => Promise<void>> } {
  let server: TestRedis | undefined;
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    server = await startTestRedis();
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await server?.stop();
  });
  return {
    redis: () => {
      if (server === undefined) throw new Error('useTestRedis: the server starts in beforeAll; call redis() inside a test');
      return server;
    },
    closers,
  };
}
