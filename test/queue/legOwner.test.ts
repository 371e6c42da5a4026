import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { END, StateGraph, cancelRun, type RunStore } from '../../src/index.js';
import { insertQueuedRun } from '../../src/graph/durable/insertQueuedRun.js';
import { advanceRun } from '../../src/queue/advanceRun.js';
import { postgresTarget, sqliteTarget, useStoreTarget } from '../persistence/storeTargets.js';
import { failingNextWrite } from '../support/storeWith.js';
import { holdingLastWrite } from '../support/holdingLastWrite.js';

/** One worker's owner id: both legs below are run by it, as a worker with concurrency 2 runs them. */
const WORKER = `${hostname()}/${process.pid}/worker-a`;
const LEASE_MS = 60_000;

/**
 * a → gate → END, where each leg's call of `gate` waits until that leg's `release(n)`
 * (the first call is leg 1's, the second leg 2's) or that leg is aborted: `entered(n)` resolves once
 * leg n is inside it, and `signal(n)` is the abort signal leg n's call was given.
 */
function twoLegGate(name: string) {
  const releases: Array<() => void> = [];
  const signals: Array<AbortSignal | undefined> = [];
  const marks: Array<() => void> = [];
  const inside = [0, 1].map(() => new Promise<void>((resolve) => marks.push(resolve)));
  const graph = new StateGraph({ name })
    .addNode('a', () => 'one')
    .addNode('gate', (ctx) => {
      const leg = releases.length;
      return new Promise<string>((resolve) => {
        releases.push(() => resolve(`through ${leg + 1}`));
        signals.push(ctx.signal);
        ctx.signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
        marks[leg]?.();
      });
    })
    .start('a')
    .addEdge('a', 'gate')
    .addEdge('gate', END);
  return { graph, entered: (leg: 1 | 2) => inside[leg - 1]!, release: (leg: 1 | 2) => releases[leg - 1]!(), signal: (leg: 1 | 2) => signals[leg - 1] };
}

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
] as const)('two legs of one run on one worker (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  /**
   * Leg 1 takes the queued run and stalls inside `gate` past its lease; the run's next job goes to
   * the same worker, whose leg 2 (its clock past leg 1's lease) claims the run and enters `gate` too.
   */
  async function twoLegs(name: string, leg1Store: RunStore, leg2Store: RunStore) {
    const store = target().store;
    const runId = `${name}-run`;
    const gate = twoLegGate(name);
    const graphs = new Map([[gate.graph.name, gate.graph]]);
    await insertQueuedRun(gate.graph.toMachine(), 'go', { store, runId });
    const leg1 = advanceRun(runId, { store: leg1Store, graphs, owner: WORKER, leaseMs: LEASE_MS });
    await gate.entered(1);
    // Leg 1's steps so far are committed (its `gate` started) before its lease runs out.
    while (!(await store.listEvents(runId)).some((e) => e.type === 'node.started' && (e.data as { nodeId?: string }).nodeId === 'gate')) await new Promise((r) => setTimeout(r, 5));
    const leg2 = advanceRun(runId, { store: leg2Store, graphs, owner: WORKER, leaseMs: LEASE_MS, now: () => Date.now() + 2 * LEASE_MS });
    await gate.entered(2);
    const claimed = (await store.getRun(runId))!;
    expect(claimed).toMatchObject({ status: 'running' });
    return { store, runId, gate, leg1, leg2, claimed };
  }

  it("leaves the run to the leg that claimed it when the stale leg's write fails: the row is not marked failed", async () => {
    const store = target().store;
    const failing = failingNextWrite(store);
    const { runId, gate, leg1, leg2, claimed } = await twoLegs('leg-owner-fail', failing.store, store);
    // Leg 1's next write fails (the store was unreachable for it); the store answers again after.
    failing.failNext();
    gate.release(1);
    const stale = await leg1;
    expect(stale).toMatchObject({ outcome: 'advanced', run: { status: 'failed' } });
    // Leg 2's row is as leg 2 left it: running, its owner, no error.
    expect(await store.getRun(runId)).toMatchObject({ status: 'running', owner: claimed.owner, error: null });
    gate.release(2);
    expect(await leg2).toMatchObject({ outcome: 'advanced', run: { status: 'completed', outputText: 'through 2' } });
    expect(await store.getRun(runId)).toMatchObject({ status: 'completed', owner: null, outputText: 'through 2' });
  });

  it('keeps the stale leg out of a run cancelled while the claiming leg runs: its events stay out of the log and the row keeps its owner', async () => {
    const store = target().store;
    const held = holdingLastWrite(store);
    const { runId, gate, leg1, leg2, claimed } = await twoLegs('leg-owner-cancel', store, held.store);
    const seqBefore = Math.max(0, ...(await store.listEvents(runId)).map((e) => e.seq));
    expect(await cancelRun(store, runId)).toMatchObject({ status: 'cancelled', owner: claimed.owner });
    // Leg 2 stops; its last write (node.cancelled, run.completed) is held until leg 1 has gone.
    await held.reached;
    gate.release(1);
    expect(await leg1).toMatchObject({ outcome: 'advanced', run: { status: 'cancelled' } });
    // Leg 1 took the run from nobody in the log: nothing of it is stored, and the row still names leg 2.
    expect(await store.getRun(runId)).toMatchObject({ status: 'cancelled', owner: claimed.owner });
    expect((await store.listEvents(runId, { afterSeq: seqBefore })).map((e) => e.type)).toEqual([]);
    held.release();
    expect(await leg2).toMatchObject({ outcome: 'advanced', run: { status: 'cancelled' } });
    expect(await store.getRun(runId)).toMatchObject({ status: 'cancelled', owner: null, error: null });
    const last = (await store.listEvents(runId)).at(-1)!;
    expect(last).toMatchObject({ type: 'run.completed' });
  });

  it('stops the claiming leg at once when the run is cancelled after the stale leg has ended', async () => {
    const store = target().store;
    const failing = failingNextWrite(store);
    const { runId, gate, leg1, leg2 } = await twoLegs('leg-owner-abort', failing.store, store);
    failing.failNext();
    gate.release(1);
    await leg1;
    // The leg that ended was not the one executing the run: a cancel in this process still reaches the one that is.
    await cancelRun(store, runId);
    expect(gate.signal(2)?.aborted).toBe(true);
    expect(await leg2).toMatchObject({ outcome: 'advanced', run: { status: 'cancelled' } });
    expect(await store.getRun(runId)).toMatchObject({ status: 'cancelled', owner: null, error: null });
  });
});
