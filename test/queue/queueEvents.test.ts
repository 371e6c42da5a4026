import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresRunStore, RunQueue, createServer } from '../../src/index.js';
import { graphs, scenarioMetadata, scenarios } from '../../machines/index.js';
import { PG_URL } from '../persistence/storeTargets.js';
import { SseReader, seqs, type SseMessage } from '../server/sseClient.js';
import { REDIS_MISSING, startTestRedis, type TestRedis } from '../support/startTestRedis.js';
import { startWorker, type WorkerProcess } from './workerProcess.js';

const isEvent = (m: SseMessage) => m.id !== undefined;

describe.skipIf(REDIS_MISSING !== null)(`workbench events of runs on worker processes (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  let redis: TestRedis;
  let store: PostgresRunStore;
  let worker: WorkerProcess;
  let queue: RunQueue;

  beforeAll(async () => {
    redis = await startTestRedis();
    const schema = `qev_${process.pid}_${Date.now().toString(36)}`;
    store = new PostgresRunStore({ url: PG_URL, schema, max: 4 });
    queue = new RunQueue({ store, graphs, redisUrl: redis.url, queueName: 'events' });
    worker = startWorker(
      { graphs: 'machines/index.ts', workerArgs: ['--concurrency', '2', '--lock-ms', '3000', '--lease-ms', '10000', '--sweep-ms', '0'] },
      { SWITCHBOARD_DATABASE_URL: PG_URL, SWITCHBOARD_DATABASE_SCHEMA: schema, SWITCHBOARD_DB: '', SWITCHBOARD_REDIS_URL: redis.url, SWITCHBOARD_QUEUE: 'events', OPENAI_API_KEY: '' },
    );
    await worker.ready;
  });
  afterAll(async () => {
    worker?.signal('SIGKILL');
    await worker?.exited;
    await queue?.close();
    await store?.close();
    await redis?.stop();
  });

  it('an SSE subscriber (and one that reconnects with Last-Event-ID) sees every event of a run on another process exactly once, in seq order', async () => {
    const wb = createServer({ store, graphs, pollMs: 50 });
    const s = scenarios.find((x) => x.id === '5-multi')!;
    const runId = await queue.start(s.graph, { input: s.message, metadata: scenarioMetadata(s) });
    const whole = new SseReader(await wb.app.request(`/api/runs/${runId}/stream`));
    const first = new SseReader(await wb.app.request(`/api/runs/${runId}/stream`));
    // The second subscriber leaves after the first node.completed and comes back with Last-Event-ID.
    const head = await first.until((m) => isEvent(m) && (JSON.parse(m.data) as { type: string }).type === 'node.completed');
    await first.close();
    const lastId = seqs(head).at(-1)!;
    const again = new SseReader(await wb.app.request(`/api/runs/${runId}/stream`, { headers: { 'last-event-id': String(lastId) } }));
    const [all, tail] = await Promise.all([whole.until((m) => m.event === 'end'), again.until((m) => m.event === 'end')]);
    const record = (await store.getRun(runId))!;
    expect(record.status).toBe('completed');
    expect(record.owner).toBeNull();
    const stored = (await store.listEvents(runId)).map((e) => e.seq);
    // Events from more than the first node: the run's whole leg ran on the worker process.
    expect(stored.length).toBeGreaterThan(10);
    expect(seqs(all)).toEqual(stored);
    expect([...seqs(head), ...seqs(tail)]).toEqual(stored);
    // The worker prints its outcome after the store says the run ended: give its output a moment to arrive.
    for (let i = 0; i < 100 && !worker.lines.some((l) => l.startsWith(`run ${runId}: completed`)); i++) await new Promise((r) => setTimeout(r, 100));
    expect(worker.lines.some((l) => l.startsWith(`run ${runId}: completed`))).toBe(true);
  });
});
