import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { END, RunManager, StateGraph, createServer, type RunPatch, type RunStore, type StoredEvent } from '../../src/index.js';
import { postgresTarget, sqliteTarget, useStoreTarget } from '../persistence/storeTargets.js';
import { SseReader, seqs } from './sseClient.js';
import { storeWith } from '../support/storeWith.js';
import { gateGraph } from '../support/gateGraph.js';

/** One write of a run's row: the status it set (if any) and the types of the events that went with it. */
interface Write {
  status: string | undefined;
  events: string[];
}

/**
 * The store as a run in another process uses it: every write is noted, and a write carrying
 * `run.completed` waits `delayMs` before it starts (a slow commit), so a reader polling meanwhile
 * sees whatever was committed before it.
 */
function observed(store: RunStore, delayMs: number): { store: RunStore; writes: Write[] } {
  const writes: Write[] = [];
  const slow = (events: readonly StoredEvent[]) => (events.some((e) => e.type === 'run.completed') ? new Promise((r) => setTimeout(r, delayMs)) : null);
  const write =
    (status: (args: unknown[]) => string | undefined) =>
    (original: (...args: unknown[]) => Promise<unknown>) =>
    async (...args: unknown[]) => {
      const events = (args[3] ?? []) as StoredEvent[];
      writes.push({ status: status(args), events: events.map((e) => e.type) });
      await slow(events);
      return original(...args);
    };
  const wrapped = storeWith(store, {
    updateRun: write((args) => (args[2] as RunPatch).status),
    appendSteps: write(() => undefined),
  });
  return { store: wrapped, writes };
}

const loop = () =>
  new StateGraph({ name: 'finished-row', maxSteps: 100 })
    .addNode('a', (ctx) => (ctx.put('n', (ctx.get<number>('n') ?? 0) + 1), null))
    .addNode('b', (ctx) => `b${ctx.get<number>('n')}`)
    .start('a')
    .addEdge('a', 'b')
    .addConditionalEdges('b', (ctx) => ((ctx.get<number>('n') ?? 0) < 5 ? 'again' : 'done'), { again: 'a', done: END });

const failing = () =>
  new StateGraph({ name: 'finished-row-failing' })
    .addNode('a', () => 'one')
    .addNode('b', () => {
      throw new Error('b broke');
    })
    .start('a')
    .addEdge('a', 'b')
    .addEdge('b', END);

/** A node that waits until its run is cancelled. */
const stuck = () =>
  new StateGraph({ name: 'finished-row-stuck' })
    .addNode('a', () => 'one')
    .addNode('wait', (ctx) => new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('woke'), 10_000);
      ctx.signal?.addEventListener('abort', () => (clearTimeout(timer), resolve('aborted')), { once: true });
    }))
    .start('a')
    .addEdge('a', 'wait')
    .addEdge('wait', END);

/** Follows a run through a workbench that does not execute it (it polls the store). */
async function follow(store: RunStore, runId: string): Promise<{ reader: SseReader; close(): Promise<void> }> {
  const wb = createServer({ store, graphs: [loop(), stuck()], pollMs: 5 });
  for (let i = 0; i < 400 && (await store.getRun(runId)) === null; i++) await new Promise((r) => setTimeout(r, 5));
  return { reader: new SseReader(await wb.app.request(`/api/runs/${runId}/stream`)), close: () => wb.close() };
}

/**
 * What `cancelRun` writes for a running run, as a process that does not execute it writes it (in
 * the leg's own process `cancelRun` would also abort the leg at once): the row cancelled, its owner
 * and lease kept. Read and written again when a checkpoint lands in between.
 */
async function cancelElsewhere(store: RunStore, runId: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const record = (await store.getRun(runId))!;
    expect(record.status).toBe('running');
    if ((await store.updateRun(runId, record.version, { status: 'cancelled', waitReason: null })) !== null) return;
  }
  throw new Error(`run ${runId} kept changing`);
}

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
] as const)('a finished run is stored with its last events (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it.each([
    ['completed', loop],
    ['failed', failing],
  ] as const)('the write that marks the run %s carries run.completed: no reader sees the row finished and the log short', async (status, graph) => {
    const { store, writes } = observed(target().store, 0);
    const run = await graph().run('go', { store });
    expect(run.status).toBe(status);
    const finishing = writes.filter((w) => w.status === status);
    expect(finishing).toHaveLength(1);
    expect(finishing[0]!.events.at(-1)).toBe('run.completed');
    // Nothing is written after it.
    expect(writes.at(-1)).toBe(finishing[0]);
  });

  it('an SSE subscriber of a run executed elsewhere gets run.completed even when that commit is slow', async () => {
    const { store } = observed(target().store, 400);
    const runId = 'finished-row-sse';
    const started = loop().run('go', { store, runId });
    const wb = await follow(target().store, runId);
    const reader = wb.reader;
    const run = await started;
    expect(run.status).toBe('completed');
    const messages = await reader.until((m) => m.event === 'end');
    const stored = (await target().store.listEvents(runId)).map((e) => e.seq);
    expect(stored.length).toBeGreaterThan(20);
    expect(seqs(messages)).toEqual(stored);
    expect(JSON.parse(messages.filter((m) => m.id !== undefined).at(-1)!.data)).toMatchObject({ type: 'run.completed' });
    await wb.close();
  });

  it('an SSE subscriber of a run cancelled while it executes gets the leg\'s last events (node.cancelled, run.completed), however late they are stored', async () => {
    const { store } = observed(target().store, 400);
    const runId = 'finished-row-cancel';
    const started = stuck().run('go', { store, runId });
    const wb = await follow(target().store, runId);
    for (let i = 0; i < 400 && !(await target().store.listEvents(runId)).some((e) => e.type === 'node.started' && (e.data as { nodeId?: string }).nodeId === 'wait'); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const cancelled = await new RunManager({ store: target().store, graphs: [stuck()] }).cancel(runId);
    expect(cancelled.status).toBe('cancelled');
    const run = await started;
    expect(run.status).toBe('cancelled');
    const messages = await wb.reader.until((m) => m.event === 'end');
    const stored = await target().store.listEvents(runId);
    expect(stored.map((e) => e.type)).toContain('run.completed');
    expect(seqs(messages)).toEqual(stored.map((e) => e.seq));
    expect(JSON.parse(messages.at(-1)!.data)).toEqual({ status: 'cancelled' });
    // Once the leg has stored its last events, the row names no owner.
    expect(await target().store.getRun(runId)).toMatchObject({ status: 'cancelled', owner: null, leaseExpiresAt: null });
    await wb.close();
  });

  it.each([
    ['whose process on this host is gone', `${hostname()}/2147483646/gone`, 60_000],
    ['whose lease runs out (another host, silent)', 'elsewhere/1/silent', 300],
  ] as const)('a subscriber of a run cancelled while running, %s, still ends', async (_label, owner, leaseMs) => {
    const store = target().store;
    const runId = `finished-row-orphan-${leaseMs}`;
    await store.insertRun({ runId, graphName: 'finished-row', graphHash: 'h', status: 'running', owner, leaseExpiresAt: Date.now() + leaseMs, snapshot: { context: { n: 0 } } });
    const cancelled = await new RunManager({ store, graphs: [loop()] }).cancel(runId);
    expect(cancelled).toMatchObject({ status: 'cancelled', owner });
    const wb = await follow(store, runId);
    const messages = await wb.reader.until((m) => m.event === 'end');
    expect(JSON.parse(messages.at(-1)!.data)).toEqual({ status: 'cancelled' });
    await wb.close();
  });

  it('a run cancelled from another process while its node is in flight stops at its next lease renewal, not at the node\'s end', async () => {
    const store = target().store;
    const runId = 'finished-row-remote-cancel';
    // The node would wait 10 s; the lease (300 ms) is renewed every 100 ms.
    const started = stuck().run('go', { store, runId, leaseMs: 300 });
    const wb = await follow(store, runId);
    for (let i = 0; i < 400 && !(await store.listEvents(runId)).some((e) => e.type === 'node.started' && (e.data as { nodeId?: string }).nodeId === 'wait'); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    await cancelElsewhere(store, runId);
    const run = await started;
    expect(run.status).toBe('cancelled');
    // The node saw the abort: it did not run to its end.
    expect(run.state.get('lastResult')).not.toEqual(expect.objectContaining({ outputText: 'woke' }));
    const messages = await wb.reader.until((m) => m.event === 'end');
    const stored = await store.listEvents(runId);
    expect(stored.map((e) => e.type).slice(-2)).toEqual(['node.cancelled', 'run.completed']);
    expect(seqs(messages)).toEqual(stored.map((e) => e.seq));
    expect(await store.getRun(runId)).toMatchObject({ status: 'cancelled', owner: null, leaseExpiresAt: null });
    await wb.close();
  });

  it('a run cancelled from another process whose node ends before the next renewal reports cancelled, as its row says', async () => {
    const store = target().store;
    const runId = 'finished-row-remote-cancel-at-write';
    const { graph, inNode, release } = gateGraph('finished-row-gate');
    const started = graph.run('go', { store, runId });
    await inNode;
    while ((await store.getRun(runId)) === null) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    await cancelElsewhere(store, runId);
    release();
    const run = await started;
    expect(run.status).toBe('cancelled');
    expect(await store.getRun(runId)).toMatchObject({ status: 'cancelled', owner: null });
    expect((await store.listEvents(runId)).at(-1)).toMatchObject({ type: 'run.completed' });
  });
});
