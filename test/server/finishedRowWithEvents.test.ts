import { describe, expect, it } from 'vitest';
import { END, StateGraph, createServer, type RunPatch, type RunStore, type StoredEvent } from '../../src/index.js';
import { postgresTarget, sqliteTarget, useStoreTarget } from '../persistence/storeTargets.js';
import { SseReader, seqs } from './sseClient.js';

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
  const wrapped = new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'updateRun') {
        return async (runId: string, version: number, patch: RunPatch, events: StoredEvent[] = []) => {
          writes.push({ status: patch.status, events: events.map((e) => e.type) });
          await slow(events);
          return target.updateRun(runId, version, patch, events);
        };
      }
      if (key === 'appendSteps' && target.appendSteps !== undefined) {
        return async (runId: string, version: number, steps: readonly string[], events: StoredEvent[] = []) => {
          writes.push({ status: undefined, events: events.map((e) => e.type) });
          await slow(events);
          return target.appendSteps!(runId, version, steps, events);
        };
      }
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
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
    const wb = createServer({ store: target().store, graphs: [loop()], pollMs: 5 });
    const runId = 'finished-row-sse';
    const started = loop().run('go', { store, runId });
    // The workbench does not execute this run: it follows it through the store, polling.
    for (let i = 0; i < 200 && (await target().store.getRun(runId)) === null; i++) await new Promise((r) => setTimeout(r, 5));
    const reader = new SseReader(await wb.app.request(`/api/runs/${runId}/stream`));
    const run = await started;
    expect(run.status).toBe('completed');
    const messages = await reader.until((m) => m.event === 'end');
    const stored = (await target().store.listEvents(runId)).map((e) => e.seq);
    expect(stored.length).toBeGreaterThan(20);
    expect(seqs(messages)).toEqual(stored);
    expect(JSON.parse(messages.filter((m) => m.id !== undefined).at(-1)!.data)).toMatchObject({ type: 'run.completed' });
    await wb.close();
  });
});
