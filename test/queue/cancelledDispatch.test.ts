import { describe, expect, it } from 'vitest';
import { Coordinator, END, PostgresRunStore, StateGraph, cancelRun, humanNode, type NewRun, type RunRecord, type RunStore } from '../../src/index.js';
import { insertQueuedRun } from '../../src/graph/durable/insertQueuedRun.js';
import { advanceRun } from '../../src/queue/advanceRun.js';
import { withSpecialistGraphs } from '../../src/queue/specialistGraphs.js';
import { storedSpecialistRuns } from '../../src/queue/storedSpecialistRuns.js';
import { PG_URL, postgresTarget, sqliteTarget, useStoreTarget } from '../persistence/storeTargets.js';
import { REDIS_MISSING } from '../support/startTestRedis.js';
import { useTestRedis } from '../support/useTestRedis.js';
import { storeWith } from '../support/storeWith.js';
import { until } from '../support/until.js';
import { noJobsLeft, startWorkerSet } from '../support/workerSet.js';

/** A coordinator that dispatches two tasks to a specialist that works, then asks a person. */
function desk(name: string) {
  const specialist = new StateGraph({ name: `${name}-spec` })
    .addNode('work', () => 'worked')
    .addNode('ask', humanNode({ reason: () => 'go on?' }))
    .start('work')
    .addEdge('work', 'ask')
    .addEdge('ask', END);
  const coordinator = new Coordinator({ specialists: { spec: specialist } });
  return new StateGraph({ name })
    .addNode('plan', coordinator.planNode(() => [{ kind: 'spec', input: 'a' }, { kind: 'spec', input: 'b' }]))
    .addNode('dispatch', coordinator.dispatchNode())
    .start('plan')
    .addEdge('plan', 'dispatch')
    .addEdge('dispatch', END);
}

/** The store with the insert of run `held` waiting for `release()` once it has begun (`reached`). */
function holdingInsert(store: RunStore, held: string): { store: RunStore; reached: Promise<void>; release(): void } {
  let release: () => void = () => {};
  let reach: () => void = () => {};
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  const wrapped = storeWith(store, {
    insertRun: (original) => async (run: NewRun): Promise<RunRecord> => {
      if (run.runId === held) {
        reach();
        await gate;
      }
      return original(run);
    },
  });
  return { store: wrapped, reached, release: () => release() };
}

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
] as const)('a coordinator run cancelled while its dispatch creates its specialist runs (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('cancels the specialist runs it created, the one waiting for a person and the one created after the cancel', async () => {
    const store = target().store;
    const graph = desk('cancelled-dispatch');
    const graphs = withSpecialistGraphs([graph]);
    const held = holdingInsert(store, 'cdesk:2:2');
    await insertQueuedRun(graph.toMachine(), 'two tasks', { store, runId: 'cdesk' });
    // A worker's leg of the coordinator: its dispatch creates the first specialist run, then is held inserting the second.
    const coordinatorLeg = advanceRun('cdesk', { store: held.store, graphs, owner: 'test/1/c', leaseMs: 30_000, specialistRuns: storedSpecialistRuns(held.store) });
    await held.reached;
    while (!(await store.listEvents('cdesk:2:1')).some((e) => e.type === 'run.started')) await new Promise((r) => setTimeout(r, 5));
    // Another worker runs the first specialist run to its human node: its coordinator still runs, so it waits.
    const specialistLeg = await advanceRun('cdesk:2:1', { store, graphs, owner: 'test/1/a', leaseMs: 30_000, specialistRuns: storedSpecialistRuns(store) });
    expect(specialistLeg).toMatchObject({ outcome: 'advanced', run: { status: 'waiting' } });
    // The coordinator is cancelled in its dispatch: its row lists no specialist run (no waiting.queued).
    expect(await cancelRun(store, 'cdesk')).toMatchObject({ status: 'cancelled' });
    held.release();
    expect(await coordinatorLeg).toMatchObject({ outcome: 'advanced', run: { status: 'cancelled' } });

    // Read back once the coordinator's leg has ended: nothing of it is left waiting or queued.
    expect(await store.getRun('cdesk')).toMatchObject({ status: 'cancelled', owner: null });
    expect(await store.getRun('cdesk:2:1')).toMatchObject({ status: 'cancelled', owner: null, waitReason: null });
    expect((await store.listEvents('cdesk:2:1')).at(-1)?.type).toBe('run.cancelled');
    expect(await store.getRun('cdesk:2:2')).toMatchObject({ status: 'cancelled', owner: null });
  });
});

describe.skipIf(REDIS_MISSING !== null)(`a coordinator run on a worker cancelled while its dispatch creates its specialist runs (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  const { redis: server, closers } = useTestRedis();

  it('leaves no specialist run waiting and no job', async () => {
    const graph = desk('cancelled-dispatch-worker');
    const base = new PostgresRunStore({ url: PG_URL, schema: `cancelled_dispatch_${process.pid}_${Date.now().toString(36)}`, max: 6 });
    const held = holdingInsert(base, 'wdesk:2:2');
    closers.push(async () => {
      held.release();
      await base.close();
    });
    const store = held.store;
    const name = 'cancelled-dispatch';
    const { queue, bull } = await startWorkerSet(server().url, store, [graph], name, closers);

    const runId = await queue.start('cancelled-dispatch-worker', 'two tasks', { runId: 'wdesk' });
    await held.reached;
    await until('the first specialist run to be created', async () => (await base.listEvents('wdesk:2:1')).some((e) => e.type === 'run.started'));
    // A sweep gives the first specialist run a job: it reaches its human node and waits (its coordinator runs).
    await queue.sweep();
    await until('the first specialist run to wait', async () => (await base.getRun('wdesk:2:1'))?.status === 'waiting');
    // The coordinator, still in its dispatch (no waiting.queued stored), is cancelled.
    expect((await base.getRun(runId))!.status).toBe('running');
    expect((await queue.cancel(runId)).status).toBe('cancelled');
    held.release();
    await until('the coordinator leg to end', async () => (await base.getRun(runId))?.owner === null);
    await queue.sweep();
    await until('every run to end and every job to be gone', async () => {
      for (const id of ['wdesk:2:1', 'wdesk:2:2']) {
        const record = await base.getRun(id);
        if (record === null || record.status === 'running' || record.status === 'queued' || record.status === 'waiting' || record.owner !== null) return false;
      }
      return noJobsLeft(bull);
    });
    const statuses: Record<string, string> = {};
    for (const id of [runId, 'wdesk:2:1', 'wdesk:2:2']) statuses[id] = (await base.getRun(id))!.status;
    expect(statuses).toEqual({ wdesk: 'cancelled', 'wdesk:2:1': 'cancelled', 'wdesk:2:2': 'cancelled' });
  });
});
