import { hostname } from 'node:os';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresRunStore, RunQueue, RunWorker, StateGraph, SwitchboardError, type LegOutcome, type RunRecord } from '../../src/index.js';
import { approvalGraph } from '../fixtures/durableGraphs.js';
import { PG_URL } from '../persistence/storeTargets.js';
import { REDIS_MISSING, startTestRedis, type TestRedis } from '../support/startTestRedis.js';
import { until } from '../support/until.js';

/** Executions of each gated node, counted outside the runs; a gate opens when the test says. */
const executions = new Map<string, number>();
const gates = new Map<string, () => void>();
const opened = new Map<string, Promise<void>>();

function gate(runKey: string): Promise<void> {
  let promise = opened.get(runKey);
  if (promise === undefined) {
    promise = new Promise<void>((resolve) => gates.set(runKey, resolve));
    opened.set(runKey, promise);
  }
  return promise;
}

function openGate(runKey: string): void {
  void gate(runKey);
  gates.get(runKey)!();
}

/** hold (counts itself, then waits for its gate, named by the request) → done. */
function gatedGraph(): StateGraph {
  return new StateGraph({ name: 'gated' })
    .addNode('hold', async (ctx, request) => {
      const key = String(request.input);
      executions.set(key, (executions.get(key) ?? 0) + 1);
      await gate(key);
      ctx.put('held', key);
      return `held ${key}`;
    })
    .addNode('done', (ctx) => `done after ${String(ctx.get('held'))}`)
    .start('hold')
    .addEdge('hold', 'done');
}

const graphs = [gatedGraph(), approvalGraph()];

// The only tests allowed to skip: no npm package ships a Redis server (REDIS_MISSING says how to install one).
describe.skipIf(REDIS_MISSING !== null)(`the run queue (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  let redis: TestRedis;
  /** The current test's store (a schema of its own, so one test's runs are not another's sweep). */
  let store: PostgresRunStore;
  let counter = 0;
  const stamp = `${process.pid}_${Date.now().toString(36)}`;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await redis?.stop();
  });

  /** A queue of its own for each test (its own BullMQ name), closed at the end. */
  function newQueue(): { queue: RunQueue; name: string; bull: Queue } {
    const name = `q${++counter}`;
    const own = new PostgresRunStore({ url: PG_URL, schema: `queue_${stamp}_${counter}`, max: 6 });
    store = own;
    closers.push(() => own.close());
    const queue = new RunQueue({ store, graphs, redisUrl: redis.url, queueName: name });
    const bull = new Queue(name, { connection: { url: redis.url } });
    closers.push(() => queue.close(), () => bull.close());
    return { queue, name, bull };
  }

  function newWorker(name: string, extra: Partial<ConstructorParameters<typeof RunWorker>[0]> = {}): { worker: RunWorker; outcomes: LegOutcome[] } {
    const outcomes: LegOutcome[] = [];
    const worker = new RunWorker({ store, graphs, redisUrl: redis.url, queueName: name, lockMs: 1000, leaseMs: 2000, sweepEveryMs: 0, onOutcome: (o) => outcomes.push(o), ...extra });
    closers.push(() => worker.close(true));
    return { worker, outcomes };
  }

  it('starts a run at once: a queued row with its initial snapshot and run.started, and one job named by the run id', async () => {
    const { queue, bull } = newQueue();
    const runId = await queue.start('gated', 'at-once');
    const record = await store.getRun(runId);
    expect(record?.status).toBe('queued');
    expect(record?.owner).toBeNull();
    // The initial transition's events: the first node is entered, not run.
    expect((await store.listEvents(runId)).map((e) => e.type)).toEqual(['run.started', 'node.started']);
    expect(executions.get('at-once')).toBeUndefined();
    const job = await bull.getJob(runId);
    expect(job?.data).toEqual({ runId });
    // Enqueueing the same row again (a sweep racing the start) adds nothing.
    await queue.enqueue(record!);
    await queue.enqueue(record!);
    expect(await bull.getJobCounts('waiting', 'active', 'delayed')).toEqual({ waiting: 1, active: 0, delayed: 0 });
  });

  it('refuses an unknown graph, a run id BullMQ cannot name and a second run of the same id', async () => {
    const { queue } = newQueue();
    await expect(queue.start('nope', 'x')).rejects.toThrow(/no graph named "nope" is registered; known: gated, approval/);
    await expect(queue.start('gated', 'x', { runId: 'a:b' })).rejects.toThrow(/must not contain ":"/);
    await queue.start('gated', 'x-dup', { runId: `dup-${counter}` });
    await expect(queue.start('gated', 'x-dup', { runId: `dup-${counter}` })).rejects.toMatchObject({ code: 'run_conflict' });
  });

  it('refuses an option a queued run does not take, before anything is stored or enqueued', async () => {
    const { queue } = newQueue();
    const before = (await store.listRuns()).length;
    await expect(queue.start('gated', 'x', { budgett: { maxTokens: 5 } } as never)).rejects.toThrow(/RunOptions\.budgett is not an option of a queued run: did you mean "budget"\?/);
    // Options of a run started here that a worker's run cannot honour are said to be so, not dropped.
    await expect(queue.start('gated', 'x', { onEvent: () => undefined } as never)).rejects.toThrow(/a worker runs a queued run, with its own; a queued run takes runId, state, maxSteps, budget, store/);
    expect((await store.listRuns()).length).toBe(before);
  });

  it('names a missing or malformed Redis URL as queue_config', () => {
    newQueue();
    const saved = process.env.SWITCHBOARD_REDIS_URL;
    delete process.env.SWITCHBOARD_REDIS_URL;
    try {
      expect(() => new RunQueue({ store, graphs })).toThrow(/set SWITCHBOARD_REDIS_URL/);
      expect(() => new RunQueue({ store, graphs, redisUrl: 'http://127.0.0.1:6379' })).toThrow(expect.objectContaining({ code: 'queue_config' }));
      expect(() => new RunWorker({ store, graphs, redisUrl: redis.url, concurrency: 0 })).toThrow(SwitchboardError);
    } finally {
      if (saved !== undefined) process.env.SWITCHBOARD_REDIS_URL = saved;
    }
  });

  it('sweeps a run whose job was lost (a crash between the row and the job) back into the queue, and a worker finishes it', async () => {
    const { queue, bull, name } = newQueue();
    const runId = await queue.start('gated', 'swept');
    await bull.remove(runId);
    expect(await bull.getJob(runId)).toBeUndefined();
    const swept = await queue.sweep();
    expect(swept.enqueued).toContain(runId);
    expect(await bull.getJob(runId)).toBeDefined();
    // A second sweep re-adds the same job id: still one job.
    await queue.sweep();
    expect((await bull.getJobCounts('waiting')).waiting).toBe(1);
    openGate('swept');
    const { worker } = newWorker(name);
    await worker.start();
    const done = await until('the swept run to complete', async () => ((await store.getRun(runId))?.status === 'completed' ? store.getRun(runId) : null));
    expect(done?.outputText).toBe('done after swept');
    expect(executions.get('swept')).toBe(1);
  });

  it('keeps one outstanding job for a run whose workers keep dying, however many sweeps see it at new versions', async () => {
    const { queue, bull, name } = newQueue();
    const runId = await queue.start('gated', 'orphan');
    await bull.remove(runId);
    // Taken by a worker that died (a pid that is not alive on this host), its lease run out.
    const orphan = async () => {
      const record = (await store.getRun(runId))!;
      await store.updateRun(runId, record.version, { status: 'running', owner: `${hostname()}/2147483646/gone`, leaseExpiresAt: Date.now() - 1 });
    };
    await orphan();
    expect((await queue.sweep()).enqueued).toEqual([runId]);
    // Taken again and its worker died again, each time at a new version, while the first job still waits.
    for (let i = 0; i < 3; i++) {
      await orphan();
      expect((await queue.sweep()).enqueued).toEqual([]);
    }
    expect(await bull.getJobCounts('waiting', 'active', 'delayed', 'prioritized')).toEqual({ waiting: 1, active: 0, delayed: 0, prioritized: 0 });
    // A job delayed for later (the run was held by a living owner when it was looked at) is made due now, not doubled.
    const [job] = await bull.getJobs(['wait']);
    await job!.remove();
    await bull.add('run', { runId }, { jobId: `${runId}.held`, delay: 60_000 });
    await orphan();
    expect((await queue.sweep()).enqueued).toEqual([runId]);
    expect(await bull.getJobCounts('waiting', 'active', 'delayed', 'prioritized')).toEqual({ waiting: 1, active: 0, delayed: 0, prioritized: 0 });
    openGate('orphan');
    const { worker, outcomes } = newWorker(name);
    await worker.start();
    const done = await until('the orphaned run to complete', async () => ((await store.getRun(runId))?.status === 'completed' ? store.getRun(runId) : null));
    expect(done?.outputText).toBe('done after orphan');
    expect(executions.get('orphan')).toBe(1);
    await until('its job to end', async () => Object.values(await bull.getJobCounts('waiting', 'active', 'delayed')).every((n) => n === 0));
    expect(outcomes.filter((o) => o.runId === runId).map((o) => o.outcome)).toEqual(['advanced']);
  });

  it("loads only the jobs of the runs a sweep finds needing one, not the backlog's", async () => {
    const { queue, bull } = newQueue();
    const runId = await queue.start('gated', 'needs-one');
    await bull.remove(runId);
    // A backlog of other runs' jobs: waiting ones, deadline jobs delayed for later, one with an id that starts like this run's.
    for (let i = 0; i < 40; i++) await bull.add('run', { runId: `other-${i}` }, { jobId: `other-${i}.v3` });
    for (let i = 0; i < 40; i++) await bull.add('run', { runId: `later-${i}`, deadline: Date.now() + 60_000 }, { jobId: `later-${i}.t2.9`, delay: 60_000 });
    await bull.add('run', { runId: `${runId}x` }, { jobId: `${runId}x` });
    const loads = vi.spyOn(Queue.prototype, 'getJob');
    try {
      expect((await queue.sweep()).enqueued).toEqual([runId]);
      expect(loads.mock.calls.map(([id]) => id)).toEqual([]);
      // Its own job, once there, is the one job loaded: a second sweep leaves it as it is.
      expect((await queue.sweep()).enqueued).toEqual([]);
      expect(loads.mock.calls.map(([id]) => id)).toEqual([runId]);
    } finally {
      loads.mockRestore();
    }
    expect((await bull.getJobCounts('waiting')).waiting).toBe(42);
  });

  it('runs a waiting run through the queue: the reply is kept, a worker resumes it, and it ends as in process', async () => {
    const { queue, name } = newQueue();
    const first = newWorker(name);
    await first.worker.start();
    const runId = await queue.start('approval', 'order 7');
    const waiting = await until('the run to wait', async () => ((await store.getRun(runId))?.status === 'waiting' ? store.getRun(runId) : null));
    expect(waiting?.waitReason).toBe('approve a refund of 599 CNY');
    // No worker while the replies come: a worker taking the first reply's job at once could finish
    // the run before the second reply is looked at (refused then as run_finished).
    await first.worker.close();
    await expect(queue.resume(runId, { not: 'text' })).rejects.toMatchObject({ code: 'invalid_reply' });
    // It resolves to the run as the reply found it, though a worker may already be running it.
    const left = await queue.resume(runId, 'approved');
    expect(left).toMatchObject({ runId, status: 'waiting', version: waiting!.version, waitReason: 'approve a refund of 599 CNY' });
    // A second, different reply to the same wait is refused.
    await expect(queue.resume(runId, 'rejected')).rejects.toMatchObject({ code: 'run_not_waiting' });
    const second = newWorker(name);
    await second.worker.start();
    const done = await until('the resumed run to complete', async () => ((await store.getRun(runId))?.status === 'completed' ? store.getRun(runId) : null));
    // The worker reports a leg after the store says how it ended: wait for that report.
    await until('the worker to report the second leg', async () => second.outcomes.some((o) => o.runId === runId && o.outcome === 'advanced'));
    const outcomes = [...first.outcomes, ...second.outcomes];

    const inProcess = await approvalGraph().run('order 7', { store });
    const resumed = await (await import('../../src/index.js')).resumeRun(approvalGraph(), inProcess.runId, { reply: 'approved' }, { store });
    expect(done?.outputText).toBe(resumed.outputText);
    expect(done?.outputText).toBe('finished: approved (reply=approved)');
    const legs = outcomes.filter((o): o is Extract<LegOutcome, { outcome: 'advanced' }> => o.outcome === 'advanced' && o.runId === runId);
    expect(legs.map((o) => o.run.status)).toEqual(['waiting', 'completed']);
    expect(legs.at(-1)?.run.path).toEqual(resumed.path);
    await expect(queue.resume(runId, 'approved')).rejects.toMatchObject({ code: 'run_finished' });
  });

  it('keeps a reply for the wait, not for the row version: a write after the wait began does not lose it', async () => {
    const { queue, name } = newQueue();
    const first = newWorker(name);
    await first.worker.start();
    const runId = await queue.start('approval', 'order 8');
    await until('the run to wait', async () => (await store.getRun(runId))?.status === 'waiting');
    await first.worker.close();
    await queue.resume(runId, 'approved');
    // The leg that stopped at the wait may write the row once more (its last events) after the reply was read against it.
    const current = (await store.getRun(runId))!;
    expect(await store.updateRun(runId, current.version, { waitReason: current.waitReason })).toBe(current.version + 1);
    const second = newWorker(name);
    await second.worker.start();
    const done = await until('the run to complete', async () => ((await store.getRun(runId))?.status === 'completed' ? store.getRun(runId) : null));
    expect(done?.outputText).toBe('finished: approved (reply=approved)');
  });

  it('cancels a queued run: the worker that takes its job does nothing', async () => {
    const { queue, name } = newQueue();
    const runId = await queue.start('gated', 'cancelled-early');
    const cancelled: RunRecord = await queue.cancel(runId);
    expect(cancelled.status).toBe('cancelled');
    const { worker, outcomes } = newWorker(name);
    await worker.start();
    const outcome = await until('the job to be taken', async () => outcomes.find((o) => o.runId === runId));
    expect(outcome).toMatchObject({ outcome: 'nothing' });
    expect(executions.get('cancelled-early')).toBeUndefined();
    expect((await store.getRun(runId))?.status).toBe('cancelled');
  });

  it('two workers racing for one run after a forced lock loss: exactly one advances it', async () => {
    const { queue, name } = newQueue();
    // Worker A never renews its BullMQ lock: once it lapses, B's stalled check hands the job to B while A still runs the node.
    const a = newWorker(name, { renewLocks: false });
    await a.worker.start();
    const runId = await queue.start('gated', 'raced');
    await until('A to run the node', async () => executions.get('raced') === 1);
    const b = newWorker(name);
    await b.worker.start();
    const held = await until('B to be given the job and find it held', async () => b.outcomes.find((o) => o.runId === runId));
    expect(held).toMatchObject({ outcome: 'held' });
    // The row names A's leg: an owner id of its own under A's (`owner/leg-n`).
    expect(held.outcome === 'held' && held.owner?.startsWith(`${a.worker.owner}/leg-`)).toBe(true);
    gates.get('raced')!();
    const done = await until('the run to complete', async () => ((await store.getRun(runId))?.status === 'completed' ? store.getRun(runId) : null));
    expect(done?.outputText).toBe('done after raced');
    // A reports its leg after the store says the run completed: wait for that report too, so the counts below see it.
    await until('A to report its leg', async () => a.outcomes.some((o) => o.runId === runId && o.outcome !== 'held'));
    // The held job is looked at again after A's lease (by A or B) and finds the run done; the node ran once, and one leg is in the log.
    await until('the held job to be looked at again', async () => [...a.outcomes, ...b.outcomes].some((o) => o.runId === runId && o.outcome === 'nothing'));
    expect(executions.get('raced')).toBe(1);
    expect(a.outcomes.filter((o) => o.runId === runId && o.outcome === 'advanced')).toHaveLength(1);
    expect(b.outcomes.filter((o) => o.runId === runId && o.outcome === 'advanced')).toHaveLength(0);
    const types = (await store.listEvents(runId)).map((e) => e.type);
    expect(types.filter((t) => t === 'run.completed')).toHaveLength(1);
    expect(types.filter((t) => t === 'run.resumed')).toHaveLength(0);
  });
});
