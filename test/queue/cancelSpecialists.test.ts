import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Coordinator, END, PostgresRunStore, StateGraph, type LegOutcome, type RunRecord } from '../../src/index.js';
import { FINISHED_STATUSES } from '../../src/persistence/RunStore.js';
import { PG_URL } from '../persistence/storeTargets.js';
import { REDIS_MISSING, startTestRedis, type TestRedis } from '../support/startTestRedis.js';
import { until } from '../support/until.js';
import { noJobsLeft, startWorkerSet } from '../support/workerSet.js';

/** Executions of each specialist node (by node and task input; `after` by node), counted outside the runs. */
const executions = new Map<string, number>();
let openGate: () => void = () => {};
const gate = new Promise<void>((resolve) => (openGate = resolve));

function count(key: string): void {
  executions.set(key, (executions.get(key) ?? 0) + 1);
}

/** quick: answers at once. slow: work (waits for the gate) → after (a second node: what a cancelled run must not reach). */
function specialists() {
  const quick = new StateGraph({ name: 'cancel-quick' }).addNode('answer', (_ctx, request) => {
    count(`quick:${String(request.input)}`);
    return `quick ${String(request.input)}`;
  });
  const slow = new StateGraph({ name: 'cancel-slow' })
    .addNode('work', async (_ctx, request) => {
      count(`work:${String(request.input)}`);
      await gate;
      return `worked ${String(request.input)}`;
    })
    .addNode('after', (_ctx, request) => {
      count('after');
      return `after ${String(request.input)}`;
    })
    .start('work')
    .addEdge('work', 'after')
    .addEdge('after', END);
  return { quick: quick.start('answer'), slow };
}

const coordinator = new Coordinator({ specialists: specialists() });
const desk = new StateGraph({ name: 'cancel-desk' })
  .addNode('plan', coordinator.planNode(() => [
    { kind: 'quick', input: 'q' },
    { kind: 'slow', input: 'a' },
    { kind: 'slow', input: 'b' },
    { kind: 'slow', input: 'c' },
  ]))
  .addNode('dispatch', coordinator.dispatchNode())
  .addNode('answer', () => 'answered')
  .start('plan')
  .addEdge('plan', 'dispatch')
  .addEdge('dispatch', 'answer')
  .addEdge('answer', END);

/**
 * A coordinator run on the queue that waits for its specialist runs (child jobs), cancelled with
 * `RunQueue.cancel`: its specialist runs still out are cancelled with it, as a cancelled
 * coordinator stops its specialists in process.
 */
describe.skipIf(REDIS_MISSING !== null)(`cancelling a coordinator run that waits for its specialist runs (real Redis and PostgreSQL)${REDIS_MISSING ? ` — skipped: ${REDIS_MISSING}` : ''}`, () => {
  let redis: TestRedis;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    openGate();
    for (const close of closers.reverse()) await close();
    await redis?.stop();
  });

  it('cancels its specialist runs that are queued or running, leaves the finished one, and nothing of theirs runs afterwards', async () => {
    const store = new PostgresRunStore({ url: PG_URL, schema: `cancel_specialists_${process.pid}_${Date.now().toString(36)}`, max: 6 });
    closers.push(() => store.close());
    const name = 'cancel-specialists';
    const outcomes: LegOutcome[] = [];
    // Two at once: the quick specialist and one slow one, then a second slow one; the third stays queued.
    const { queue, bull } = await startWorkerSet(redis.url, store, [desk], name, closers, { onOutcome: (o) => outcomes.push(o) });

    const runId = await queue.start('cancel-desk', 'four tasks', { runId: 'desk1' });
    const children = ['desk1:2:1', 'desk1:2:2', 'desk1:2:3', 'desk1:2:4'];
    const slow = children.slice(1);
    // The coordinator waits for them; quick has completed and two slow ones are in their work.
    await until('the coordinator to wait, quick to complete and two slow specialists to work', async () => {
      const parent = await store.getRun(runId);
      const quick = await store.getRun(children[0]!);
      const working = ['a', 'b', 'c'].filter((k) => executions.has(`work:${k}`)).length;
      return parent?.status === 'waiting' && quick?.status === 'completed' && working === 2;
    });
    const before = new Map<string, RunRecord>();
    for (const id of slow) before.set(id, (await store.getRun(id))!);
    expect([...before.values()].map((r) => r.status).sort()).toEqual(['queued', 'running', 'running']);

    const cancelled = await queue.cancel(runId);
    expect(cancelled.status).toBe('cancelled');
    // The slow specialists' nodes in flight end now; a cancelled run goes no further.
    openGate();

    // Everything ends: every row finished with no owner left, and no job left in BullMQ.
    await until('every run to end and every job to be gone', async () => {
      for (const id of [runId, ...children]) {
        const record = await store.getRun(id);
        if (record === null || !FINISHED_STATUSES.has(record.status) || record.owner !== null) return false;
      }
      return noJobsLeft(bull);
    });

    // The coordinator is cancelled, the finished specialist stays as it was, the others are cancelled;
    // no slow specialist reached its second node, and the queued one never started its work.
    const statuses: Record<string, string> = {};
    for (const id of [runId, ...children]) statuses[id] = (await store.getRun(id))!.status;
    expect({ statuses, after: executions.get('after') ?? 0, worked: ['a', 'b', 'c'].filter((k) => executions.has(`work:${k}`)).length, quick: executions.get('quick:q') }).toEqual({
      statuses: { desk1: 'cancelled', 'desk1:2:1': 'completed', 'desk1:2:2': 'cancelled', 'desk1:2:3': 'cancelled', 'desk1:2:4': 'cancelled' },
      after: 0,
      worked: 2,
      quick: 1,
    });
    for (const id of slow) {
      // Its own log ends with its last events: run.cancelled for the queued one, run.completed (cancelled) for a running one.
      const last = (await store.listEvents(id)).at(-1)!;
      const wasQueued = before.get(id)!.status === 'queued';
      expect(wasQueued ? last.type : `${last.type}:${String((last.data as { run?: { status?: string } }).run?.status)}`).toBe(wasQueued ? 'run.cancelled' : 'run.completed:cancelled');
    }
    // The coordinator's job came back once its children ended and found nothing to do.
    expect(outcomes.filter((o) => o.runId === runId).map((o) => o.outcome)).toEqual(['advanced', 'nothing']);
  });
});
