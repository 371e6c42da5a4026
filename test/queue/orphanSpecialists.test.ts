import { describe, expect, it } from 'vitest';
import { Coordinator, END, PostgresRunStore, StateGraph, type NewRun, type RunRecord } from '../../src/index.js';
import { FINISHED_STATUSES } from '../../src/persistence/RunStore.js';
import { insertQueuedRun } from '../../src/graph/durable/insertQueuedRun.js';
import { advanceRun } from '../../src/queue/advanceRun.js';
import { withSpecialistGraphs } from '../../src/queue/specialistGraphs.js';
import { storedSpecialistRuns } from '../../src/queue/storedSpecialistRuns.js';
import { PG_URL } from '../persistence/storeTargets.js';
import { REDIS_MISSING } from '../support/startTestRedis.js';
import { useTestRedis } from '../support/useTestRedis.js';
import { until } from '../support/until.js';
import { noJobsLeft, startWorkerSet } from '../support/workerSet.js';

/** Executions of the specialist's node, by task input, counted outside the runs. */
const worked = new Map<string, number>();

const specialist = new StateGraph({ name: 'orphan-spec' })
  .addNode('work', (_ctx, request) => {
    worked.set(String(request.input), (worked.get(String(request.input)) ?? 0) + 1);
    return `worked ${String(request.input)}`;
  })
  .start('work');

const coordinator = new Coordinator({ specialists: { spec: specialist } });
const desk = new StateGraph({ name: 'orphan-desk' })
  .addNode('plan', coordinator.planNode(() => [
    { kind: 'spec', input: 'a' },
    { kind: 'spec', input: 'b' },
  ]))
  .addNode('dispatch', coordinator.dispatchNode())
  .addNode('answer', () => 'answered')
  .start('plan')
  .addEdge('plan', 'dispatch')
  .addEdge('dispatch', 'answer')
  .addEdge('answer', END);

/** A store whose inserts of specialist runs (ids with ":") wait for `release` once they have begun. */
class GatedStore extends PostgresRunStore {
  readonly entered: string[] = [];
  release: () => void = () => {};
  readonly #gate = new Promise<void>((resolve) => (this.release = resolve));

  override async insertRun(run: NewRun): Promise<RunRecord> {
    if (run.runId.includes(':')) {
      this.entered.push(run.runId);
      await this.#gate;
    }
    return super.insertRun(run);
  }
}

const schema = (what: string) => `orphan_${what}_${process.pid}_${Date.now().toString(36)}`;

/**
 * A specialist run whose coordinator run finished before the specialist was taken (cancelled while
 * its dispatch was still creating the specialist runs, before its join stored `waiting.queued`;
 * or failed): a worker that finds it cancels it instead of running it.
 */
describe.skipIf(REDIS_MISSING !== null)(`specialist runs of a finished coordinator run (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  const { redis: server, closers } = useTestRedis();

  it('a coordinator cancelled during its dispatch: the specialist runs it created are cancelled by the worker, not run', async () => {
    const store = new GatedStore({ url: PG_URL, schema: schema('dispatch'), max: 6 });
    closers.push(async () => {
      store.release();
      await store.close();
    });
    const name = 'orphan-specialists';
    const { queue, bull } = await startWorkerSet(server().url, store, [desk], name, closers);

    const runId = await queue.start('orphan-desk', 'two tasks', { runId: 'odesk' });
    // The dispatch is creating its specialist runs: the join has not stored waiting.queued.
    await until('the dispatch to create a specialist run', async () => store.entered.length > 0);
    const parent = (await store.getRun(runId))!;
    expect(parent.status).toBe('running');
    expect((parent.snapshot as { context?: { waiting?: unknown } }).context?.waiting ?? null).toBeNull();
    expect((await queue.cancel(runId)).status).toBe('cancelled');
    store.release();

    const children = ['odesk:2:1', 'odesk:2:2'];
    // The coordinator's leg ends; the specialist runs it was creating exist, queued, with no job.
    await until('the coordinator to end and its specialist runs to exist', async () => {
      const record = await store.getRun(runId);
      if (record?.owner !== null) return false;
      for (const id of children) if ((await store.getRun(id)) === null) return false;
      return true;
    });
    // A worker's sweep gives them jobs (as every worker's periodic sweep would).
    await queue.sweep();
    await until('every run to end and every job to be gone', async () => {
      for (const id of [runId, ...children]) {
        const record = await store.getRun(id);
        if (record === null || !FINISHED_STATUSES.has(record.status) || record.owner !== null) return false;
      }
      return noJobsLeft(bull);
    });

    const statuses: Record<string, string> = {};
    for (const id of [runId, ...children]) statuses[id] = (await store.getRun(id))!.status;
    const lastEvents: Record<string, string | undefined> = {};
    for (const id of children) lastEvents[id] = (await store.listEvents(id)).at(-1)?.type;
    expect({ statuses, lastEvents, worked: (worked.get('a') ?? 0) + (worked.get('b') ?? 0) }).toEqual({
      statuses: { odesk: 'cancelled', 'odesk:2:1': 'cancelled', 'odesk:2:2': 'cancelled' },
      lastEvents: { 'odesk:2:1': 'run.cancelled', 'odesk:2:2': 'run.cancelled' },
      worked: 0,
    });
  });

  it('a specialist run whose coordinator row failed is cancelled; one whose coordinator still runs or waits is advanced', async () => {
    const store = new PostgresRunStore({ url: PG_URL, schema: schema('advance'), max: 4 });
    closers.push(() => store.close());
    const graphs = withSpecialistGraphs([desk]);
    const advance = (runId: string) => advanceRun(runId, { store, graphs, owner: 'test/1/a', leaseMs: 30_000, specialistRuns: storedSpecialistRuns(store) });
    // Coordinator rows as a worker leaves them: one failed, one running (its dispatch in progress), one waiting.
    for (const [id, status] of [['failed1', 'failed'], ['running1', 'running'], ['waiting1', 'waiting']] as const) {
      const record = await insertQueuedRun(desk.toMachine(), 'two tasks', { store, runId: id });
      expect(await store.updateRun(id, record.version, { status, ...(status === 'running' ? { owner: 'elsewhere/1/b', leaseExpiresAt: Date.now() + 60_000 } : {}) })).not.toBeNull();
      // A specialist run as the dispatch creates it: queued, named <parent>:<step>:<task>, in its coordinator run's trace.
      const trace = (record.snapshot as { context: { trace: { traceId: string; spanId: string } } }).context.trace;
      await insertQueuedRun(specialist.toMachine(), `${id} task`, { store, runId: `${id}:2:1`, trace: { traceId: trace.traceId, spanId: 'b7ad6b7169203331', parentSpanId: trace.spanId, path: 'root/spec[1]' } });
    }

    const failed = await advance('failed1:2:1');
    expect(failed.outcome).toBe('nothing');
    expect((await store.getRun('failed1:2:1'))!.status).toBe('cancelled');
    expect((await store.listEvents('failed1:2:1')).at(-1)?.type).toBe('run.cancelled');
    expect(worked.get('failed1 task') ?? 0).toBe(0);

    for (const id of ['running1', 'waiting1']) {
      const outcome = await advance(`${id}:2:1`);
      expect(outcome.outcome).toBe('advanced');
      expect((await store.getRun(`${id}:2:1`))!.status).toBe('completed');
      expect(worked.get(`${id} task`)).toBe(1);
    }
  });
});
