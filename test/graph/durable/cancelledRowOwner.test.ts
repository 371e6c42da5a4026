import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { END, StateGraph, cancelRun, defaultMemoryStore, humanNode, resumeRun, type RunStore, type WorkflowRun } from '../../../src/index.js';
import { postgresTarget, sqliteTarget, useStoreTarget } from '../../persistence/storeTargets.js';
import { insertQueuedRun } from '../../../src/graph/durable/insertQueuedRun.js';
import { failingNextWrite } from '../../support/storeWith.js';
import { holdingLastWrite } from '../../support/holdingLastWrite.js';
import { gateGraph } from '../../support/gateGraph.js';
import { until } from '../../support/until.js';

/** a → wait (until the run is aborted) → END; `started` resolves when wait begins. */
function gated(name: string) {
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const graph = new StateGraph({ name })
    .addNode('a', () => 'one')
    .addNode('wait', (ctx) => new Promise<string>((resolve) => {
      ctx.signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
      markStarted();
    }))
    .start('a')
    .addEdge('a', 'wait')
    .addEdge('wait', END);
  return { graph, started };
}

async function eventTypes(store: RunStore, runId: string, afterSeq: number): Promise<string[]> {
  return (await store.listEvents(runId, { afterSeq })).map((e) => e.type);
}

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
] as const)('the owner of a run cancelled while it runs (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('stays the leg that holds the run when a leg it took the run from stops: that stale leg neither writes events nor releases the row', async () => {
    const store = target().store;
    const runId = 'cancelled-owner-taken-over';
    const stale = `${hostname()}/${process.pid}/stale-leg`;
    const holder = `${hostname()}/${process.pid}/holding-leg`;
    const { graph, started } = gated('cancelled-owner');
    const leg = graph.run('go', { store, runId, owner: stale });
    await started;
    // The stale leg's events so far are stored (its node `wait` started).
    while ((await eventTypes(store, runId, 0)).filter((t) => t === 'node.started').length < 2) await new Promise((r) => setTimeout(r, 5));
    // Another process took the run over (the stale leg's lease ran out) and executes it now.
    let record = (await store.getRun(runId))!;
    await store.updateRun(runId, record.version, { status: 'running', owner: holder, leaseExpiresAt: Date.now() + 60_000 });
    record = (await store.getRun(runId))!;
    const seqBefore = Math.max(record.lastSeq, ...(await store.listEvents(runId)).map((e) => e.seq));
    // The cancel keeps the holder's owner; it also aborts the stale leg, which runs in this process.
    expect(await cancelRun(store, runId)).toMatchObject({ status: 'cancelled', owner: holder });
    const run = await leg;
    expect(run.status).toBe('cancelled');
    // The holder still has its last events to store: the row still names it.
    expect(await store.getRun(runId)).toMatchObject({ status: 'cancelled', owner: holder });
    // The stale leg's events (numbered on from its own count) are not in the holder's log.
    expect(await eventTypes(store, runId, seqBefore)).toEqual([]);
  });

  it('stays cancelled when the run is cancelled at its wait before the leg that reached it has stored its last events', async () => {
    const store = target().store;
    const runId = 'cancelled-owner-at-wait';
    const held = holdingLastWrite(store);
    const graph = new StateGraph({ name: 'cancelled-owner-wait' })
      .addNode('a', () => 'one')
      .addNode('ask', humanNode({ reason: () => 'go on?' }))
      .start('a')
      .addEdge('a', 'ask')
      .addEdge('ask', END);
    const leg = graph.run('go', { store: held.store, runId });
    // The wait is stored (no owner); the leg's write of run.completed has not landed yet.
    await held.reached;
    expect(await store.getRun(runId)).toMatchObject({ status: 'waiting', owner: null });
    expect(await cancelRun(store, runId)).toMatchObject({ status: 'cancelled', owner: null });
    held.release();
    // The leg had stopped at the wait when the run was cancelled: it is fenced, not failed.
    expect((await leg).status).toBe('cancelled');
    expect(await store.getRun(runId)).toMatchObject({ status: 'cancelled', owner: null, error: null });
    expect((await eventTypes(store, runId, 0)).at(-1)).toBe('run.cancelled');
  });
});

/** The run as the stored `run.completed` of the run itself (not a nested run's) gives it. */
async function storedRun(store: RunStore, runId: string): Promise<{ status?: unknown; outputText?: unknown; result?: unknown } | undefined> {
  const events = await store.listEvents(runId);
  const last = events.filter((e) => e.type === 'run.completed' && (e.data as { path?: string }).path === 'root').at(-1);
  return (last?.data as { run?: { status?: unknown } } | undefined)?.run;
}

/** The status the stored `run.completed` of the run itself (not a nested run's) gives. */
async function storedCompletion(store: RunStore, runId: string): Promise<unknown> {
  return (await storedRun(store, runId))?.status;
}

/**
 * A cancelled run's output is its last completed node's, as a run cancelled by its signal while a
 * node runs reports it: the returned run, its stored run.completed and its row (read back later) agree.
 */
async function expectOutput(store: RunStore, run: WorkflowRun, outputText: string): Promise<void> {
  expect(run.outputText).toBe(outputText);
  expect(run.result?.outputText).toBe(outputText);
  const stored = await storedRun(store, run.runId);
  expect(stored?.outputText).toBe(outputText);
  expect(stored?.result).toMatchObject({ outputText });
  expect((await store.getRun(run.runId))?.outputText).toBe(outputText);
}

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
] as const)('a leg that finds its run cancelled only at its last write (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it.each([
    [
      'completed',
      'two',
      () =>
        new StateGraph({ name: 'cancelled-at-last-write' })
          .addNode('a', () => 'one')
          .addNode('b', () => 'two')
          .start('a')
          .addEdge('a', 'b')
          .addEdge('b', END),
    ],
    [
      'failed',
      'one',
      () =>
        new StateGraph({ name: 'cancelled-at-last-write-failing' })
          .addNode('a', () => 'one')
          .addNode('b', () => {
            throw new Error('b broke');
          })
          .start('a')
          .addEdge('a', 'b')
          .addEdge('b', END),
    ],
  ] as const)('stores run.completed as cancelled, as its row says, although its machine %s, with the output it returns', async (machine, outputText, makeGraph) => {
    const store = target().store;
    const runId = `cancelled-at-last-write-${machine}`;
    const held = holdingLastWrite(store);
    const graph = makeGraph();
    const leg = graph.run('go', { store: held.store, runId });
    // The machine has finished: the write of its finished row with run.completed is in flight.
    await held.reached;
    expect(await store.getRun(runId)).toMatchObject({ status: 'running' });
    expect(await cancelRun(store, runId)).toMatchObject({ status: 'cancelled' });
    held.release();
    const run = await leg;
    expect(run.status).toBe('cancelled');
    expect(run.error).toBeUndefined();
    // Read back later, as a workbench in another process would: the row and the log agree.
    expect(await store.getRun(runId)).toMatchObject({ status: 'cancelled', owner: null, leaseExpiresAt: null, error: null });
    expect((await store.listEvents(runId)).at(-1)).toMatchObject({ type: 'run.completed' });
    expect(await storedCompletion(store, runId)).toBe('cancelled');
    await expectOutput(store, run, outputText);
  });

  it('stores run.completed as cancelled, with no wait, when the write of its wait found the cancel', async () => {
    const store = target().store;
    const runId = 'cancelled-at-wait-write';
    const held = holdingLastWrite(store, (patch) => patch.status === 'waiting');
    const graph = new StateGraph({ name: 'cancelled-at-wait-write' })
      .addNode('a', () => 'one')
      .addNode('ask', humanNode({ reason: () => 'go on?' }))
      .start('a')
      .addEdge('a', 'ask')
      .addEdge('ask', END);
    const leg = graph.run('go', { store: held.store, runId });
    await held.reached;
    expect(await cancelRun(store, runId)).toMatchObject({ status: 'cancelled' });
    held.release();
    const run = await leg;
    expect(run.status).toBe('cancelled');
    expect(run.waiting).toBeUndefined();
    expect(await store.getRun(runId)).toMatchObject({ status: 'cancelled', owner: null, leaseExpiresAt: null, waitReason: null });
    expect((await store.listEvents(runId)).at(-1)).toMatchObject({ type: 'run.completed' });
    expect(await storedCompletion(store, runId)).toBe('cancelled');
    const stored = (await store.listEvents(runId)).at(-1)!.data as { run: { waiting?: unknown } };
    expect(stored.run.waiting).toBeUndefined();
    await expectOutput(store, run, 'one');
  });

  it('stores run.completed as cancelled for a run whose events are under another run\'s path (a specialist run on the queue)', async () => {
    const store = target().store;
    const runId = 'cancelled-specialist-last-write';
    const graph = new StateGraph({ name: 'cancelled-specialist-last-write' })
      .addNode('a', () => 'one')
      .addNode('b', () => 'two')
      .start('a')
      .addEdge('a', 'b')
      .addEdge('b', END);
    // Queued as a coordinator's dispatch creates its specialist run: in the coordinator's trace, under its path.
    await insertQueuedRun(graph.toMachine(), 'go', { store, runId, trace: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: 'b7ad6b7169203331', parentSpanId: '00f067aa0ba902b7', path: 'root/spec[1]' } });
    const held = holdingLastWrite(store);
    const leg = resumeRun(graph, runId, undefined, { store: held.store });
    await held.reached;
    expect(await cancelRun(store, runId)).toMatchObject({ status: 'cancelled' });
    held.release();
    const run = await leg;
    expect(run.status).toBe('cancelled');
    const last = (await store.listEvents(runId)).at(-1)!;
    expect(last).toMatchObject({ type: 'run.completed', data: { path: 'root/spec[1]', run: { status: 'cancelled', outputText: 'two' } } });
    expect(await store.getRun(runId)).toMatchObject({ status: 'cancelled', owner: null, outputText: 'two' });
  });

  it('stores the output it returns when cancelled while a node runs', async () => {
    const store = target().store;
    const runId = 'cancelled-in-node-output';
    const { graph, inNode, release } = gateGraph('cancelled-in-node-output');
    const leg = graph.run('go', { store, runId });
    await inNode;
    expect(await cancelRun(store, runId)).toMatchObject({ status: 'cancelled' });
    release();
    const run = await leg;
    expect(run.status).toBe('cancelled');
    expect(await storedCompletion(store, runId)).toBe('cancelled');
    await expectOutput(store, run, 'one');
  });
});

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
] as const)('a leg whose last write fails after its run was cancelled (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('leaves the row cancelled (not failed), releases it, and reports the run cancelled', async () => {
    const store = target().store;
    const runId = 'cancelled-then-write-fails';
    // The leg's first write after the cancel fails (a connection reset); the store is back after it.
    const failing = failingNextWrite(store);
    const { graph, started } = gated('cancelled-write-fails');
    const leg = graph.run('go', { store: failing.store, runId });
    await started;
    await cancelRun(store, runId);
    failing.failNext();
    const run = await leg;
    expect(run.status).toBe('cancelled');
    expect(await store.getRun(runId)).toMatchObject({ status: 'cancelled', owner: null, leaseExpiresAt: null, error: null });
  });
});

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
] as const)('a leg whose write fails after another leg took its run over (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('leaves the run to the leg that holds it now (not failed)', async () => {
    const store = target().store;
    const runId = 'taken-then-write-fails';
    // The leg's next write fails (a connection reset); the store is back after it.
    const failing = failingNextWrite(store);
    const { graph, inNode, release } = gateGraph('taken-write-fails');
    const leg = graph.run('go', { store: failing.store, runId });
    await inNode;
    // Its writes so far are stored (the gate's start among them): nothing of it is in flight.
    while (!(await store.listEvents(runId)).some((e) => e.type === 'node.started' && (e.data as { nodeId?: string }).nodeId === 'gate')) {
      await new Promise((r) => setTimeout(r, 5));
    }
    // This leg's lease ran out (its store unreachable for a while) and another worker claimed the run.
    let taken: number | null = null;
    for (let attempt = 0; attempt < 20 && taken === null; attempt++) {
      const record = (await store.getRun(runId))!;
      taken = await store.updateRun(runId, record.version, { owner: 'elsewhere/1/b', leaseExpiresAt: Date.now() + 60_000 });
    }
    expect(taken).not.toBeNull();
    failing.failNext();
    release();
    const run = await leg;
    expect(run.status).toBe('failed');
    expect(await store.getRun(runId)).toMatchObject({ status: 'running', owner: 'elsewhere/1/b', error: null });
  });
});

describe('a run held in memory (started without a store)', () => {
  it('cancelled while a resumed leg runs, ends with no owner once that leg stops', async () => {
    let release: () => void = () => {};
    let markStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const graph = new StateGraph({ name: 'cancelled-owner-memory' })
      .addNode('ask', humanNode({ reason: () => 'go on?' }))
      .addNode('work', () => new Promise<string>((resolve) => ((release = () => resolve('done')), markStarted())))
      .start('ask')
      .addEdge('ask', 'work')
      .addEdge('work', END);
    const first = await graph.run('go');
    expect(first.status).toBe('waiting');
    const leg = resumeRun(graph, first.runId, { reply: 'yes' });
    await started;
    expect(await cancelRun(defaultMemoryStore, first.runId)).toMatchObject({ status: 'cancelled' });
    release();
    expect((await leg).status).toBe('cancelled');
    expect(await defaultMemoryStore.getRun(first.runId)).toMatchObject({ status: 'cancelled', owner: null, leaseExpiresAt: null });
  });

  it('cancelRun stops the node in flight of a resumed leg (it sees the abort), as it does a stored run\'s, and nothing runs after it', async () => {
    let markStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    let sawAbort = false;
    let after = 0;
    const graph = new StateGraph({ name: 'cancelled-memory-in-flight' })
      .addNode('ask', humanNode({ reason: () => 'go on?' }))
      // Ends only when it is aborted: a cancel that does not reach it leaves the leg going for good.
      .addNode('work', (ctx) => new Promise<string>((resolve) => {
        ctx.signal.addEventListener('abort', () => ((sawAbort = true), resolve('stopped')), { once: true });
        markStarted();
      }))
      .addNode('next', () => ((after += 1), 'next'))
      .start('ask')
      .addEdge('ask', 'work')
      .addEdge('work', 'next')
      .addEdge('next', END);
    const first = await graph.run('go');
    expect(first.status).toBe('waiting');
    let settled = false;
    const leg = resumeRun(graph, first.runId, { reply: 'yes' }).finally(() => (settled = true));
    await started;
    expect(await cancelRun(defaultMemoryStore, first.runId)).toMatchObject({ status: 'cancelled' });
    // Not a timing check: without the abort reaching the node, neither ever happens.
    await until('the node in flight to see the cancel', () => sawAbort, { ms: 10_000 });
    await until('the resumed leg to end', () => settled, { ms: 10_000 });
    const run = await leg;
    expect(run.status).toBe('cancelled');
    expect(after).toBe(0);
    expect(await defaultMemoryStore.getRun(first.runId)).toMatchObject({ status: 'cancelled', owner: null, leaseExpiresAt: null });
  });

  const endings: Array<[how: string, outputText: string, finish: () => string, asksAgain: boolean]> = [
    ['completes', 'done', () => 'done', false],
    [
      'fails',
      'yes',
      () => {
        throw new Error('work broke');
      },
      false,
    ],
    ['reaches another wait', 'done', () => 'done', true],
  ];
  it.each(endings)('cancelled once a resumed leg\'s machine %s but before its last write, returns and stores it cancelled with no error, no wait and the same output', async (_how, outputText, finish, asksAgain) => {
    const graph = new StateGraph({ name: `cancelled-memory-${_how.replaceAll(' ', '-')}` })
      .addNode('ask', humanNode({ reason: () => 'go on?' }))
      .addNode('work', () => finish())
      .addNode('again', humanNode({ reason: () => 'again?' }))
      .start('ask')
      .addEdge('ask', 'work')
      .addEdge('work', asksAgain ? 'again' : END)
      .addEdge('again', END);
    const first = await graph.run('go');
    expect(first.status).toBe('waiting');
    // The leg's one write, made when its machine has ended, is held: the cancel lands before it.
    let release: () => void = () => {};
    let reach: () => void = () => {};
    const reached = new Promise<void>((resolve) => (reach = resolve));
    const original = defaultMemoryStore.updateRun;
    defaultMemoryStore.updateRun = async function (this: typeof defaultMemoryStore, ...args: Parameters<typeof original>) {
      if (args[0] === first.runId && args[2].status !== undefined && args[2].status !== 'running' && args[2].status !== 'cancelled') {
        defaultMemoryStore.updateRun = original;
        reach();
        await new Promise<void>((resolve) => (release = resolve));
      }
      return original.apply(this, args);
    };
    try {
      const leg = resumeRun(graph, first.runId, { reply: 'yes' });
      await reached;
      expect(await cancelRun(defaultMemoryStore, first.runId)).toMatchObject({ status: 'cancelled' });
      release();
      const run = await leg;
      expect(run.status).toBe('cancelled');
      expect(run.error).toBeUndefined();
      expect(run.waiting).toBeUndefined();
      // Its output is its last completed node's (the human node's reply, when work failed), as the row says.
      expect(run.outputText).toBe(outputText);
      expect(await defaultMemoryStore.getRun(first.runId)).toMatchObject({ status: 'cancelled', owner: null, leaseExpiresAt: null, error: null, waitReason: null, outputText });
    } finally {
      defaultMemoryStore.updateRun = original;
    }
  });
});
