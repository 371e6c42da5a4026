import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINISHED_STATUSES } from '../../src/persistence/RunStore.js';
import { PostgresRunStore, RunQueue } from '../../src/index.js';
import { PG_URL } from '../persistence/storeTargets.js';
import { REDIS_MISSING, startTestRedis, type TestRedis } from '../support/startTestRedis.js';
import { graphs } from './opsGraphs.js';
import { startWorker, type WorkerProcess } from './workerProcess.js';
import { until as pollUntil, type UntilCheck } from '../support/until.js';

const until = <T>(what: string, check: UntilCheck<T>) => pollUntil(what, check, { ms: 120_000, everyMs: 50 });

/**
 * SIGTERM on a `switchboard worker` process that is in the middle of a run: it takes no new job,
 * ends the leg it holds (the run completes, its lease released, its job gone from Redis) and exits
 * 0; another worker runs the rest. A second signal stops it at once and the run it held continues
 * on another worker from its last checkpoint, each node run once.
 */
describe.skipIf(REDIS_MISSING !== null)(`stopping a worker (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  let redis: TestRedis;
  const workers: WorkerProcess[] = [];
  const closers: Array<() => Promise<unknown>> = [];
  let counter = 0;

  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    for (const w of workers) w.signal('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    for (const close of closers.reverse()) await close();
    await redis?.stop();
  });

  function setting() {
    const n = ++counter;
    const schema = `qstop_${process.pid}_${Date.now().toString(36)}_${n}`;
    const queueName = `stop${n}`;
    const store = new PostgresRunStore({ url: PG_URL, schema, max: 4 });
    const queue = new RunQueue({ store, graphs, redisUrl: redis.url, queueName });
    const bull = new Queue(queueName, { connection: { url: redis.url } });
    // The slow graph's nodes after the first wait for this file: a run stays in the middle until the test lets it go on.
    const holdDir = mkdtempSync(join(tmpdir(), 'sb-qstop-'));
    const hold = join(holdDir, 'go');
    const letGo = () => writeFileSync(hold, '');
    closers.push(() => store.close(), () => queue.close(), () => bull.close(), async () => rmSync(holdDir, { recursive: true, force: true }));
    const env = {
      SWITCHBOARD_DATABASE_URL: PG_URL,
      SWITCHBOARD_DATABASE_SCHEMA: schema,
      SWITCHBOARD_DB: '',
      SWITCHBOARD_REDIS_URL: redis.url,
      SWITCHBOARD_QUEUE: queueName,
      SWITCHBOARD_TEST_SLOW_MS: '1500',
      SWITCHBOARD_TEST_SLOW_HOLD: hold,
      OPENAI_API_KEY: '',
    };
    const spawnWorker = () => {
      const w = startWorker({ graphs: 'test/queue/opsGraphs.ts', workerArgs: ['--concurrency', '1', '--lock-ms', '2000', '--lease-ms', '10000', '--sweep-ms', '0'] }, env);
      workers.push(w);
      return w;
    };
    const allEnded = (ids: string[]) =>
      until('every run to end', async () => (await Promise.all(ids.map((id) => store.getRun(id)))).every((r) => r !== null && FINISHED_STATUSES.has(r.status)));
    return { store, queue, bull, spawnWorker, allEnded, letGo };
  }

  it('SIGTERM: the worker ends the run it holds, takes no other, releases the lease and exits 0; another worker runs the rest', async () => {
    const { store, queue, bull, spawnWorker, allEnded, letGo } = setting();
    const first = spawnWorker();
    await first.ready;
    const ids = [await queue.start('slow', 'a'), await queue.start('slow', 'b'), await queue.start('slow', 'c')];
    const held = await until('the first worker to hold a run', async () => {
      for (const id of ids) {
        const r = await store.getRun(id);
        if (r?.status === 'running' && r.owner !== null) return r;
      }
      return null;
    });
    const heldEvents = () => store.listEvents(held.runId);
    // Signalled in the middle of the run: its first node started, its last has not (the nodes after
    // the first are held until the worker has said it stops, however long this process takes to get here).
    expect((await heldEvents()).some((e) => e.type === 'node.completed' && (e.data as { nodeId?: string }).nodeId === 'three')).toBe(false);
    first.signal('SIGTERM');
    await until('the worker to say it stops', () => first.lines.some((l) => l.startsWith('stopping:')));
    letGo();
    const second = spawnWorker();
    const end = await first.exited;
    expect(end).toEqual({ code: 0, signal: null });
    expect(first.lines).toContain('worker stopped');
    // It finished the run it held, and only that one.
    expect(first.lines.filter((l) => /^run \S+: /.test(l))).toEqual([`run ${held.runId}: completed`]);
    const finished = (await store.getRun(held.runId))!;
    expect(finished.status).toBe('completed');
    expect(finished.owner).toBeNull();
    expect(finished.outputText).toMatch(/^three\(/);
    await second.ready;
    await allEnded(ids);
    await until('the second worker to report the other runs', () => ids.filter((x) => x !== held.runId).every((id) => second.lines.includes(`run ${id}: completed`)));
    // Every run ran each node once, and no job is left in Redis.
    for (const id of ids) {
      const started = (await store.listEvents(id)).filter((e) => e.type === 'node.started').map((e) => (e.data as { nodeId?: string }).nodeId);
      expect(started, id).toEqual(['one', 'two', 'three']);
    }
    // The worker prints a run's outcome before its job is finished in Redis: stop it (a clean stop
    // ends the jobs it holds) before counting what is left.
    second.signal('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(await bull.getJobCountByTypes('active', 'wait', 'delayed', 'failed')).toBe(0);
  }, 300_000);

  it('a second signal stops the worker at once; another worker continues the run it held from its last checkpoint', async () => {
    const { store, queue, bull, spawnWorker, allEnded, letGo } = setting();
    const first = spawnWorker();
    await first.ready;
    const runId = await queue.start('slow', 'x');
    // Signalled once its first node is checkpointed, while the second runs (held until the test lets it go on).
    await until('the first node to complete', async () => (await store.listEvents(runId)).some((e) => e.type === 'node.completed'));
    first.signal('SIGTERM');
    await until('the worker to say it stops', () => first.lines.some((l) => l.startsWith('stopping:')));
    first.signal('SIGTERM');
    const end = await first.exited;
    expect(end.signal).toBeNull();
    expect(first.lines.some((l) => l.startsWith(`run ${runId}: completed`))).toBe(false);
    expect(first.lines).toContain(`worker stopped at once: handed back 1 run(s) in progress (${runId}); another worker continues them from their last checkpoint`);
    // Handed back: interrupted, no owner, no lease (a new job waits for it).
    const handed = (await store.getRun(runId))!;
    expect(handed.status).toBe('interrupted');
    expect(handed.owner).toBeNull();
    expect(handed.leaseExpiresAt).toBeNull();
    letGo();
    const second = spawnWorker();
    await second.ready;
    await allEnded([runId]);
    // Two jobs reach it: the one handed back, and the first worker's, given back when its lock ran
    // out; whichever comes first runs the rest of the run, the other finds it done.
    await until('the second worker to report both jobs of the run', () => second.lines.filter((l) => l.startsWith(`run ${runId}: `)).length >= 2);
    expect(second.lines.filter((l) => l.startsWith(`run ${runId}: `))).toEqual([`run ${runId}: completed`, `run ${runId}: nothing to do (the run already completed)`]);
    const record = (await store.getRun(runId))!;
    expect(record.status).toBe('completed');
    expect(record.outputText).toBe('three(two(one(x)))');
    const events = await store.listEvents(runId);
    const completed = events.filter((e) => e.type === 'node.completed').map((e) => (e.data as { nodeId?: string }).nodeId);
    // From the checkpoint: 'one' is not run again.
    expect(completed).toEqual(['one', 'two', 'three']);
    // As above: its last job is finished in Redis after the line; a clean stop waits for it.
    second.signal('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(await bull.getJobCountByTypes('active', 'wait', 'delayed', 'failed')).toBe(0);
  }, 300_000);
});
