import { describe, expect, it } from 'vitest';
import { Coordinator, END, PostgresRunStore, StateGraph, cancelRun, humanNode, type NewRun, type RunRecord } from '../../src/index.js';
import { insertQueuedRun } from '../../src/graph/durable/insertQueuedRun.js';
import { advanceRun } from '../../src/queue/advanceRun.js';
import { withSpecialistGraphs } from '../../src/queue/specialistGraphs.js';
import { storedSpecialistRuns } from '../../src/queue/storedSpecialistRuns.js';
import { PG_URL, postgresTarget, sqliteTarget, useStoreTarget } from '../persistence/storeTargets.js';
import { REDIS_MISSING } from '../support/startTestRedis.js';
import { useTestRedis } from '../support/useTestRedis.js';
import { until } from '../support/until.js';
import { noJobsLeft, startWorkerSet } from '../support/workerSet.js';

/** A specialist that works (held in `gate` until `release()`), then asks a person; its coordinator dispatches `tasks` of it. */
function asking(tasks = 1) {
  let release: () => void = () => {};
  let markStarted: () => void = () => {};
  const inGate = new Promise<void>((resolve) => (markStarted = resolve));
  const specialist = new StateGraph({ name: 'asking-spec' })
    .addNode('gate', () => new Promise<string>((resolve) => ((release = () => resolve('worked')), markStarted())))
    .addNode('ask', humanNode({ reason: () => 'go on?' }))
    .start('gate')
    .addEdge('gate', 'ask')
    .addEdge('ask', END);
  const coordinator = new Coordinator({ specialists: { spec: specialist } });
  const desk = new StateGraph({ name: 'asking-desk' })
    .addNode('plan', coordinator.planNode(() => Array.from({ length: tasks }, (_, i) => ({ kind: 'spec', input: String.fromCharCode(97 + i) }))))
    .addNode('dispatch', coordinator.dispatchNode())
    .start('plan')
    .addEdge('plan', 'dispatch')
    .addEdge('dispatch', END);
  return { specialist, desk, inGate, release: () => release() };
}

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
] as const)('a specialist run that reaches a wait after its coordinator run finished (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('is cancelled when its leg ends at the wait, not left waiting for a reply nobody wants', async () => {
    const store = target().store;
    const { specialist, desk, inGate, release } = asking();
    const graphs = withSpecialistGraphs([desk]);
    // The coordinator run as a worker leaves it in its dispatch: running, no waiting.queued stored yet.
    const parent = await insertQueuedRun(desk.toMachine(), 'one task', { store, runId: 'adesk' });
    expect(await store.updateRun('adesk', parent.version, { status: 'running', owner: 'elsewhere/1/b', leaseExpiresAt: Date.now() + 60_000 })).not.toBeNull();
    // Its specialist run as the dispatch creates it: queued, named <parent>:<step>:<task>, in the coordinator run's trace.
    const trace = (parent.snapshot as { context: { trace: { traceId: string; spanId: string } } }).context.trace;
    await insertQueuedRun(specialist.toMachine(), 'a', { store, runId: 'adesk:2:1', trace: { traceId: trace.traceId, spanId: 'b7ad6b7169203331', parentSpanId: trace.spanId, path: 'root/spec[1]' } });

    // A worker (a sweep gave it a job) runs the specialist; its node is in flight.
    const leg = advanceRun('adesk:2:1', { store, graphs, owner: 'test/1/a', leaseMs: 30_000, specialistRuns: storedSpecialistRuns(store) });
    await inGate;
    // The coordinator is cancelled while still in its dispatch: its cancel sees no specialist run to cancel.
    expect(await cancelRun(store, 'adesk')).toMatchObject({ status: 'cancelled' });
    expect(await store.getRun('adesk:2:1')).toMatchObject({ status: 'running' });
    release();

    const outcome = await leg;
    expect(outcome).toMatchObject({ outcome: 'advanced', run: { status: 'cancelled' } });
    expect(await store.getRun('adesk:2:1')).toMatchObject({ status: 'cancelled', owner: null, leaseExpiresAt: null, waitReason: null });
    expect((await store.listEvents('adesk:2:1')).map((e) => e.type).slice(-2)).toEqual(['run.completed', 'run.cancelled']);
  });

  it('is left waiting when its coordinator run still runs', async () => {
    const store = target().store;
    const { specialist, desk, inGate, release } = asking();
    const graphs = withSpecialistGraphs([desk]);
    const parent = await insertQueuedRun(desk.toMachine(), 'one task', { store, runId: 'bdesk' });
    expect(await store.updateRun('bdesk', parent.version, { status: 'running', owner: 'elsewhere/1/b', leaseExpiresAt: Date.now() + 60_000 })).not.toBeNull();
    const trace = (parent.snapshot as { context: { trace: { traceId: string; spanId: string } } }).context.trace;
    await insertQueuedRun(specialist.toMachine(), 'a', { store, runId: 'bdesk:2:1', trace: { traceId: trace.traceId, spanId: 'b7ad6b7169203331', parentSpanId: trace.spanId, path: 'root/spec[1]' } });
    const leg = advanceRun('bdesk:2:1', { store, graphs, owner: 'test/1/a', leaseMs: 30_000, specialistRuns: storedSpecialistRuns(store) });
    await inGate;
    release();
    expect(await leg).toMatchObject({ outcome: 'advanced', run: { status: 'waiting' } });
    expect(await store.getRun('bdesk:2:1')).toMatchObject({ status: 'waiting', waitReason: 'go on?' });
  });
});

/** A store whose insert of the run `held` waits for `release` once it has begun. */
class HoldingStore extends PostgresRunStore {
  readonly held: string;
  entered = false;
  release: () => void = () => {};
  readonly #gate = new Promise<void>((resolve) => (this.release = resolve));

  constructor(options: ConstructorParameters<typeof PostgresRunStore>[0], held: string) {
    super(options);
    this.held = held;
  }

  override async insertRun(run: NewRun): Promise<RunRecord> {
    if (run.runId === this.held) {
      this.entered = true;
      await this.#gate;
    }
    return super.insertRun(run);
  }
}

describe.skipIf(REDIS_MISSING !== null)(`a specialist run on a worker that reaches a wait after its coordinator run was cancelled (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  const { redis: server, closers } = useTestRedis();

  it('is cancelled by its worker, and no job is left', async () => {
    const { desk, inGate, release } = asking(2);
    // The dispatch's second specialist run is held in its insert: the coordinator stays in its dispatch.
    const store = new HoldingStore({ url: PG_URL, schema: `orphan_wait_${process.pid}_${Date.now().toString(36)}`, max: 6 }, 'wdesk:2:2');
    closers.push(async () => {
      store.release();
      await store.close();
    });
    const name = 'orphan-waiting-specialist';
    const { queue, bull } = await startWorkerSet(server().url, store, [desk], name, closers);

    const runId = await queue.start('asking-desk', 'two tasks', { runId: 'wdesk' });
    await until('the dispatch to create its first specialist run', async () => store.entered && (await store.getRun('wdesk:2:1')) !== null);
    // A sweep gives the first specialist run a job; a worker runs it into its gate.
    await queue.sweep();
    await inGate;
    // The coordinator, still in its dispatch (no waiting.queued stored), is cancelled: nothing lists its specialists.
    expect((await store.getRun(runId))!.status).toBe('running');
    expect((await queue.cancel(runId)).status).toBe('cancelled');
    store.release();
    // The specialist's node ends; its run reaches its human node.
    release();
    await until('the specialist leg to end', async () => {
      const record = await store.getRun('wdesk:2:1');
      return record !== null && record.status !== 'running' && record.owner === null;
    });
    // The second specialist run (created after the cancel, queued) gets its job from a sweep.
    await until('the coordinator leg to end', async () => (await store.getRun(runId))?.owner === null && (await store.getRun('wdesk:2:2')) !== null);
    await queue.sweep();
    await until('every run to end and every job to be gone', async () => {
      for (const id of ['wdesk:2:1', 'wdesk:2:2']) {
        const record = await store.getRun(id);
        if (record === null || record.status === 'running' || record.status === 'queued' || record.owner !== null) return false;
      }
      return noJobsLeft(bull);
    });
    const statuses: Record<string, string> = {};
    for (const id of [runId, 'wdesk:2:1', 'wdesk:2:2']) statuses[id] = (await store.getRun(id))!.status;
    expect(statuses).toEqual({ wdesk: 'cancelled', 'wdesk:2:1': 'cancelled', 'wdesk:2:2': 'cancelled' });
    // Its log ends saying so: cancelled by its coordinator's dispatch while in its gate, its leg's own
    // run.completed (cancelled); or, had it reached its wait first, the cancel's run.cancelled.
    const last = (await store.listEvents('wdesk:2:1')).at(-1);
    expect(last?.type === 'run.cancelled' || (last?.type === 'run.completed' && (last.data as { run?: { status?: string } }).run?.status === 'cancelled')).toBe(true);
  });
});
