import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { Coordinator, SqliteRunStore, StateGraph, humanNode, resumeRun, type RunStore } from '../../src/index.js';

const clone = <T>(value: T): T => structuredClone(value);

/** A loop with state writes, a conditional hop and a coordinator: every kind of step that writes context. */
function busyGraph() {
  const specialist = new StateGraph({ name: 'spec' }).addNode('work', (ctx, r) => {
    ctx.put('seen', String(r.input));
    return `did ${String(r.input)}`;
  }).start('work');
  const coordinator = new Coordinator({ specialists: { spec: specialist } });
  return new StateGraph({ name: 'busy' })
    .addNode('count', (ctx) => {
      ctx.put('count', (ctx.get<number>('count') ?? 0) + 1);
      ctx.put('items', [...(ctx.get<string[]>('items') ?? []), `item${ctx.get<number>('count')}`]);
      return `count ${ctx.get<number>('count')}`;
    })
    .addNode('plan', coordinator.planNode(() => [{ kind: 'spec', input: 'a' }, { kind: 'spec', input: 'b' }]))
    .addNode('dispatch', coordinator.dispatchNode())
    .start('count')
    .addConditionalEdges('count', (ctx) => ((ctx.get<number>('count') ?? 0) < 70 ? 'count' : 'plan'))
    .addEdge('plan', 'dispatch');
}

describe('the machine context is never changed in place', () => {
  it('every snapshot a subscriber received is unchanged after the run (70+ steps, past a path chunk)', async () => {
    const actor = createActor(busyGraph().toMachine(), { input: { request: 'go', maxSteps: 100 } });
    const received: Array<{ kept: unknown; copy: unknown }> = [];
    actor.subscribe((snapshot) => received.push({ kept: snapshot.context, copy: clone(snapshot.context) }));
    actor.start();
    const output = await toPromise(actor);
    expect(output.status).toBe('completed');
    expect(output.path).toHaveLength(72);
    expect(received.length).toBeGreaterThan(70);
    for (const [i, { kept, copy }] of received.entries()) expect(kept, `snapshot #${i}`).toEqual(copy);
    // Consecutive snapshots share what did not change (full path chunks), so a step does not copy the run.
    const last = received.at(-1)!.kept as { path: { chunks: string[][] } };
    const earlier = received[received.length - 3]!.kept as { path: { chunks: string[][] } };
    expect(last.path.chunks[0]).toBe(earlier.path.chunks[0]);
  });

  it('keeps persisted snapshots unchanged too: each restores to the step it was taken at', async () => {
    const actor = createActor(busyGraph().toMachine(), { input: { request: 'go', maxSteps: 100 } });
    const persisted: Array<{ kept: unknown; copy: unknown }> = [];
    actor.subscribe(() => {
      const snapshot = actor.getPersistedSnapshot();
      persisted.push({ kept: snapshot, copy: clone(snapshot) });
    });
    actor.start();
    await toPromise(actor);
    for (const { kept, copy } of persisted) expect(kept).toEqual(copy);
  });

  it('the snapshot a durable run stored while waiting does not grow when the run goes on', async () => {
    const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-immutable-')), 'runs.db') });
    // Keep the very objects the engine hands the store, with a copy taken when they were handed over.
    const handed: Array<{ status: unknown; kept: unknown; copy: unknown }> = [];
    const keeping: RunStore = new Proxy(store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== 'updateRun' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return (runId: string, version: number, patch: { status?: unknown; snapshot?: unknown }, events?: unknown) => {
          if (patch.snapshot !== undefined) handed.push({ status: patch.status, kept: patch.snapshot, copy: clone(patch.snapshot) });
          return (value as (...a: unknown[]) => unknown).call(target, runId, version, patch, events);
        };
      },
    });
    const graph = new StateGraph({ name: 'wait-then-go' })
      .addNode('draft', (ctx) => {
        ctx.put('draft', 'v1');
        return 'draft v1';
      })
      .addNode('approve', humanNode({ reason: 'approve the draft' }))
      .addNode('publish', (ctx) => {
        ctx.put('published', true);
        return 'published';
      })
      .addNode('notify', () => 'notified')
      .start('draft')
      .addEdge('draft', 'approve')
      .addEdge('approve', 'publish')
      .addEdge('publish', 'notify');
    const waiting = await graph.run('go', { store: keeping });
    expect(waiting.status).toBe('waiting');
    const done = await resumeRun(graph, waiting.runId, { reply: 'yes' }, { store: keeping });
    expect(done.path).toEqual(['draft', 'approve', 'publish', 'notify']);
    const waitingSnapshot = handed.find((h) => h.status === 'waiting')!;
    expect(waitingSnapshot).toBeDefined();
    expect(waitingSnapshot.kept).toEqual(waitingSnapshot.copy);
    const context = (waitingSnapshot.kept as { context: { path: { tail: string[] }; state: Record<string, unknown> } }).context;
    expect(context.path.tail).toEqual(['draft', 'approve']);
    expect(context.state.published).toBeUndefined();
    for (const { kept, copy } of handed) expect(kept).toEqual(copy);
    await store.close();
  });

  it('continues a snapshot stored with a flat path array (before paths were chunked)', async () => {
    const graph = new StateGraph({ name: 'legacy' }).addNode('a', () => 'A').addNode('b', () => 'B').start('a').addEdge('a', 'b');
    const actor = createActor(graph.toMachine(), { input: { request: 'go' } });
    const snapshots: unknown[] = [];
    actor.subscribe(() => snapshots.push(JSON.parse(JSON.stringify(actor.getPersistedSnapshot()))));
    actor.start();
    await toPromise(actor);
    // The snapshot taken while `b` was in flight, rewritten to the old shape.
    const atB = snapshots.find((s) => (s as { value: unknown }).value === 'b') as { context: { path: unknown } };
    atB.context.path = ['a', 'b'];
    const output = await toPromise(createActor(graph.toMachine(), { snapshot: atB as never, input: { request: '' } }).start());
    expect(output).toMatchObject({ status: 'completed', path: ['a', 'b'], outputText: 'B' });
  });
});
