import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OfflineModel, RunManager, RunStateError, RunStateJson, StateGraph, Workflow, humanNode, stateAt, step, toRunStateJson, type RunStore } from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';
import { scenarioMetadata, scenarios } from '../../machines/scenarios.js';
import { memoryTarget, postgresTarget, sqliteTarget, useStoreTarget, type StoreTarget } from '../persistence/storeTargets.js';

/** The final state a stored run's snapshot holds, keys sorted. */
async function storedState(store: RunStore, runId: string): Promise<Record<string, unknown>> {
  const context = ((await store.getRun(runId))!.snapshot as { context: { state: Record<string, unknown> } }).context;
  return context.state;
}

/** Three nodes writing, overwriting and deleting keys, seeded with a state. */
function counter() {
  return new StateGraph({ name: 'counter' })
    .addNode('a', (ctx) => {
      ctx.put('n', Number(ctx.get('n') ?? 0) + 1);
      ctx.put('tmp', 'x');
      return 'from a';
    })
    .addNode('b', (ctx) => {
      ctx.put('n', Number(ctx.get('n')) * 10);
      ctx.state.delete('tmp');
      return null;
    })
    .addNode('c', (ctx, r) => `c got ${String(r.input)} n=${String(ctx.get('n'))}`)
    .start('a')
    .addEdge('a', 'b')
    .addEdge('b', 'c');
}

const targets: [string, () => StoreTarget][] = [
  ['memory', memoryTarget],
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
];

describe.each(targets)('stateAt on %s', (_name, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('rebuilds every step of a run from its log: the seeded state, each write, delete and handoff', async () => {
    const { store } = target();
    const run = await counter().run('go', { store, state: { n: 1 } });
    expect(run.status).toBe('completed');
    const at0 = await stateAt(store, run.runId, 0);
    expect(at0).toMatchObject({ step: 0, lastStep: 3, nodeId: null, nextNodeId: 'a', result: null, request: { input: 'go' }, state: { n: 1 }, forkOf: null });
    const at1 = await stateAt(store, run.runId, 1);
    expect(at1).toMatchObject({ step: 1, nodeId: 'a', nextNodeId: 'b', result: { outputText: 'from a' }, request: { input: 'from a' } });
    expect(at1.state).toMatchObject({ n: 2, tmp: 'x', lastNodeId: 'a', currentNodeId: 'a' });
    const at2 = await stateAt(store, run.runId, 2);
    // b returned null: the next node gets the same request (the handoff rule).
    expect(at2).toMatchObject({ nodeId: 'b', nextNodeId: 'c', request: { input: 'from a' } });
    expect(at2.state['n']).toBe(20);
    expect('tmp' in at2.state).toBe(false);
    const at3 = await stateAt(store, run.runId, 3);
    expect(at3).toMatchObject({ nodeId: 'c', nextNodeId: null, result: { outputText: 'c got from a n=20' } });
    // The last step is the state the run ended with, exactly.
    expect(at3.state).toEqual(await storedState(store, run.runId));
    expect(RunStateJson.parse(toRunStateJson(at3)).state).toEqual(at3.state);
  });

  it('refuses an unknown run and a step the run does not have, typed', async () => {
    const { store } = target();
    const run = await counter().run('go', { store });
    await expect(stateAt(store, 'no-such-run', 0)).rejects.toMatchObject({ name: 'RunStateError', code: 'run_not_found' });
    for (const bad of [4, -1, 1.5, Number.NaN, '2' as unknown as number]) {
      const error = await stateAt(store, run.runId, bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunStateError);
      expect(error).toMatchObject({ code: 'step_out_of_range' });
      expect((error as Error).message).toContain('steps 0 to 3');
    }
  });

  it('counts a human node as a step once it has its reply, and not while the run waits', async () => {
    const { store } = target();
    const graph = new StateGraph({ name: 'ask' })
      .addNode('draft', (ctx) => {
        ctx.put('amount', 5);
        return 'draft';
      })
      .addNode('approve', humanNode({ reply: z.object({ ok: z.boolean() }), replyKey: 'approval' }))
      .addNode('done', (ctx) => `ok=${String((ctx.get('approval') as { ok: boolean }).ok)}`)
      .start('draft')
      .addEdge('draft', 'approve')
      .addEdge('approve', 'done');
    const runs = new RunManager({ store, graphs: [graph] });
    const waiting = await runs.start('ask', 'x');
    expect(waiting.status).toBe('waiting');
    expect((await stateAt(store, waiting.runId, 1)).lastStep).toBe(1);
    await expect(stateAt(store, waiting.runId, 2)).rejects.toThrow(/it is waiting: 1 completed so far/);
    const done = await runs.resume(waiting.runId, { reply: { ok: true } });
    expect(done.outputText).toBe('ok=true');
    const at2 = await stateAt(store, waiting.runId, 2);
    expect(at2).toMatchObject({ nodeId: 'approve', nextNodeId: 'done' });
    expect(at2.state['approval']).toEqual({ ok: true });
    expect((await stateAt(store, waiting.runId, 3)).state).toEqual(await storedState(store, waiting.runId));
  });

  it('rebuilds the last step of every customer-service scenario as the state it ended with', async () => {
    const { store } = target();
    const runs = new RunManager({ store, graphs: [customerService({ model: new OfflineModel() })] });
    for (const s of scenarios.filter((x) => x.graph === 'customer-service')) {
      const meta = scenarioMetadata(s);
      let run = await runs.start('customer-service', { input: s.message, metadata: meta });
      if (run.status === 'waiting' && s.reply !== undefined) run = await runs.resume(run.runId, { reply: s.reply });
      // A run that waits has started its human node: its state names that node, which is no step yet.
      if (run.status === 'waiting') continue;
      const last = await stateAt(store, run.runId, run.steps);
      expect(last.lastStep, s.id).toBe(run.steps);
      expect(last.nodeId, s.id).toBe(run.path[run.path.length - 1]);
      expect(last.state, s.id).toEqual(await storedState(store, run.runId));
    }
  });

  it('rebuilds a typed workflow run step by step', async () => {
    const { store } = target();
    const wf = Workflow.define<string>('words')
      .step(step('trim', (_c, s: string) => s.trim(), { updateContext: (ctx) => ctx.mutate().with('trimmed', true).build() }))
      .then(step('count', (_c, s: string) => s.split(/\s+/).length, { updateContext: (ctx) => ctx.mutate().with('counted', 1).build() }));
    const runs = new RunManager({ store, graphs: [wf] });
    const run = await runs.start('words', ' a b c ');
    expect(run.status).toBe('completed');
    const last = await stateAt(store, run.runId, run.steps);
    expect(last.state).toEqual(await storedState(store, run.runId));
    const first = await stateAt(store, run.runId, 1);
    expect(first.nodeId).toBe(run.path[0]);
    expect(first.state['counted']).toBeUndefined();
  });
});
