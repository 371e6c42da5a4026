import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresRunStore, RunQueue, recoverRuns, type RunRecord, type RunStore } from '../../src/index.js';
import { toRunnableGraph } from '../../src/graph/RunnableGraph.js';
import { waitStep } from '../../src/queue/pendingReply.js';
import { deadlineJobIdFor } from '../../src/queue/runJob.js';
import { PG_URL } from '../persistence/storeTargets.js';
import { REDIS_MISSING, startTestRedis, type TestRedis } from '../support/startTestRedis.js';
import { graphs } from './opsGraphs.js';
import { startWorker, type WorkerProcess } from './workerProcess.js';
import { until as pollUntil, type UntilCheck } from '../support/until.js';

/** The gate's deadline: the first worker dies right after the run starts waiting, well before it. */
const GATE_MS = 8_000;
process.env.SWITCHBOARD_TEST_GATE_MS = String(GATE_MS);

const until = <T>(what: string, check: UntilCheck<T>) => pollUntil(what, check, { ms: 120_000, everyMs: 100 });

/**
 * A HumanGate's deadline as a BullMQ delayed job: the worker that ran the run to its wait is
 * SIGKILLed, and a fresh worker process times the wait out at the deadline; no process of the
 * original run is alive. A sweep schedules a deadline whose job was never added, and a
 * `recoverRuns` timer in another process as well does not time the wait out twice.
 */
describe.skipIf(REDIS_MISSING !== null)(`wait deadlines as delayed jobs (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
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
    const schema = `qdl_${process.pid}_${Date.now().toString(36)}_${n}`;
    const queueName = `deadline${n}`;
    const store = new PostgresRunStore({ url: PG_URL, schema, max: 4 });
    const queue = new RunQueue({ store, graphs, redisUrl: redis.url, queueName });
    const bull = new Queue(queueName, { connection: { url: redis.url } });
    closers.push(() => store.close(), () => queue.close(), () => bull.close());
    const env = {
      SWITCHBOARD_DATABASE_URL: PG_URL,
      SWITCHBOARD_DATABASE_SCHEMA: schema,
      SWITCHBOARD_DB: '',
      SWITCHBOARD_REDIS_URL: redis.url,
      SWITCHBOARD_QUEUE: queueName,
      SWITCHBOARD_TEST_GATE_MS: String(GATE_MS),
      OPENAI_API_KEY: '',
    };
    const spawnWorker = (sweepMs: number, more: Record<string, string> = {}) => {
      const w = startWorker({ graphs: 'test/queue/opsGraphs.ts', workerArgs: ['--lock-ms', '3000', '--lease-ms', '10000', '--sweep-ms', String(sweepMs)] }, { ...env, ...more });
      workers.push(w);
      return w;
    };
    /**
     * Starts a run on a worker that SIGKILLs itself as soon as it has said the run waits at the gate
     * (so it is dead long before the deadline, whatever this process is doing); resolves with the
     * run and its deadline.
     */
    const waitOnDoomedWorker = async (input: string) => {
      const first = spawnWorker(0, { SWITCHBOARD_TEST_DIE_AFTER_WAITING: '1' });
      await first.ready;
      const runId = await queue.start('timed-review', input);
      expect((await first.exited).signal).toBe('SIGKILL');
      expect(first.lines.some((l) => l.startsWith(`run ${runId}: waiting`))).toBe(true);
      // Still waiting once the worker is dead: what times the wait out is not a process of its leg.
      const record = (await store.getRun(runId))!;
      expect(record.status).toBe('waiting');
      const deadline = toRunnableGraph(graphs[0]!).waitDeadline!(record)!;
      expect(typeof deadline).toBe('number');
      return { runId, deadline, jobId: deadlineJobIdFor(runId, waitStep(record), deadline) };
    };
    return { store, bull, spawnWorker, waitOnDoomedWorker };
  }

  it('a fresh worker process times the wait out at its deadline after the worker that ran the run died', async () => {
    const { store, bull, spawnWorker, waitOnDoomedWorker } = setting();
    const { runId, deadline, jobId } = await waitOnDoomedWorker('the plan');
    // The dead worker scheduled the timeout in Redis before it said the run waits.
    const job = await bull.getJob(jobId);
    expect(job?.data).toEqual({ runId, deadline });
    expect(await job?.getState()).toBe('delayed');
    // No sweep: only the delayed job can move the run.
    const second = spawnWorker(0);
    await second.ready;
    const done = await until('the run to time out', async () => {
      const r = await store.getRun(runId);
      return r !== null && r.status !== 'waiting' && r.status !== 'running' ? r : null;
    });
    expect(done.status).toBe('completed');
    expect(done.outputText).toMatch(/^expired draft of the plan: no decision before the deadline \(\d{4}-/);
    const events = await store.listEvents(runId);
    const resumed = events.filter((e) => e.type === 'run.resumed');
    expect(resumed).toHaveLength(1);
    // On schedule: not before the deadline.
    expect(new Date(resumed[0]!.at).getTime()).toBeGreaterThanOrEqual(deadline);
    // The worker prints its outcome after the store says the run ended: give its output a moment to arrive.
    for (let i = 0; i < 100 && !second.lines.some((l) => l.startsWith(`run ${runId}: completed`)); i++) await new Promise((r) => setTimeout(r, 100));
    expect(second.lines.some((l) => l.startsWith(`run ${runId}: completed`))).toBe(true);
    second.signal('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 300_000);

  it('a sweep schedules a deadline whose job was lost, and a recoverRuns timer in another process as well times the wait out once', async () => {
    const { store, bull, spawnWorker, waitOnDoomedWorker } = setting();
    const { runId, deadline, jobId } = await waitOnDoomedWorker('the memo');
    // As if the worker had died between the wait's checkpoint and its delayed job.
    await bull.remove(jobId);
    expect(await bull.getJob(jobId)).toBeUndefined();
    const second = spawnWorker(500);
    await second.ready;
    // The job is there until it has run (a deadline already passed runs it at once, and it is removed
    // once done): either says the sweep added it, as nothing else here can time the wait out yet.
    await until('the sweep to schedule the deadline again', async () => (await bull.getJob(jobId)) !== undefined || second.lines.includes(`run ${runId}: completed`));
    // This process watches the same wait (recovering at start-up arms its in-process timer). Its
    // reads of the run through this store are counted: the first arms the timer (none: the run no
    // longer waited, no timer); the second is the timer's look once the deadline has passed, after
    // which it has resumed the run or left it to whoever did.
    const looks: Array<Promise<RunRecord | null>> = [];
    const watched = new Proxy(store, {
      get(target, key) {
        if (key === 'getRun') {
          return (id: string) => {
            const found = target.getRun(id);
            if (id === runId) looks.push(found);
            return found;
          };
        }
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as RunStore;
    await recoverRuns({ store: watched, graphs });
    const done = await until('the run to time out', async () => {
      const r = await store.getRun(runId);
      return r !== null && r.status !== 'waiting' && r.status !== 'running' ? r : null;
    });
    expect(done.status).toBe('completed');
    expect(done.outputText).toMatch(/^expired draft of the memo: no decision before the deadline/);
    // Both timers have fired once this process's timer is done with the run and the delayed job is
    // finished (removed from Redis; its leg, if it ran one, ended before); then count: one resume, one onTimeout step.
    await until('the in-process timer to look at the run', async () => {
      if (looks.length === 0 || (await looks[0])?.status !== 'waiting') return true;
      if (looks.length < 2) return false;
      await looks[1];
      return true;
    });
    await until('the deadline job to be finished', async () => (await bull.getJob(jobId)) === undefined);
    const events = await store.listEvents(runId);
    expect(events.filter((e) => e.type === 'run.resumed')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'node.started' && (e.data as { nodeId?: string }).nodeId === 'expire')).toHaveLength(1);
    expect(new Date(events.find((e) => e.type === 'run.resumed')!.at).getTime()).toBeGreaterThanOrEqual(deadline);
    second.signal('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 300_000);
});
