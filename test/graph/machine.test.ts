import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { SequentialWorkflow, StateGraph, humanNode, serializeSnapshot } from '../../src/index.js';

const branching = () =>
  new StateGraph({ name: 'branch' })
    .addNode('start', (_ctx, r) => String(r.input))
    .addNode('cold', () => 'coat')
    .addNode('warm', () => 'shirt')
    .start('start')
    .addConditionalEdges('start', (_ctx, r) => (String(r.input).includes('cold') ? 'cold' : 'warm'));

describe('graph.toMachine()', () => {
  it('runs with createActor and toPromise to the same values run() returns', async () => {
    const graph = branching();
    const output = await toPromise(createActor(graph.toMachine(), { input: { request: 'cold day' } }).start());
    const run = await graph.run('cold day');
    expect(output).toMatchObject({ status: run.status, outputText: run.outputText, path: run.path, steps: run.steps });
    expect(output.status).toBe('completed');
    expect(output.path).toEqual(['start', 'cold']);
  });

  it('has one state per node invoking the node actor, whose onDone lists the hops in priority order', () => {
    const machine = branching().toMachine();
    expect(Object.keys(machine.root.states)).toEqual(['start', 'cold', 'warm', 'completed', 'maxSteps', 'failed', 'cancelled', 'budgetExceeded']);
    const start = machine.root.states.start!;
    expect(start.invoke[0]!.id).toBe('start');
    const onDone = start.transitions.get('xstate.done.actor.start')!;
    const hops = onDone.map((t) => [
      typeof t.guard === 'object' ? (t.guard as { type: string }).type : (t.guard ?? null),
      t.target?.map((s) => s.id),
    ]);
    // Priority order: a spent budget, the fuse, a routing failure, every target of the conditional group, then the end.
    expect(hops).toEqual([
      ['budgetSpent', ['branch.budgetExceeded']],
      ['fuseSpent', ['branch.maxSteps']],
      ['routeFailed', ['branch.failed']],
      ['routedTo', ['branch.start']],
      ['routedTo', ['branch.cold']],
      ['routedTo', ['branch.warm']],
      ['routedTo', ['branch.completed']],
      [null, ['branch.completed']],
    ]);
  });

  it('gives a human node a waiting state and a routing step', () => {
    const machine = new StateGraph({ name: 'h' }).addNode('ask', humanNode()).addNode('done', () => 'ok').start('ask').addEdge('ask', 'done').toMachine();
    expect(Object.keys(machine.root.states.ask!.states)).toEqual(['waiting', 'routing']);
    expect(machine.root.states.ask!.invoke).toEqual([]);
  });

  it('accepts runId, maxSteps and state in the machine input', async () => {
    const loop = new StateGraph().addNode('a', (ctx) => `${ctx.get<string>('seed')}`).start('a').addEdge('a', 'a');
    const output = await toPromise(createActor(loop.toMachine(), { input: { request: { input: 'x' }, runId: 'm1', maxSteps: 4, state: { seed: 'S' } } }).start());
    expect(output).toMatchObject({ runId: 'm1', status: 'max-steps', steps: 4, outputText: 'S' });
    expect(output.state.seed).toBe('S');
  });

  it('compiles a SequentialWorkflow to a machine too', async () => {
    const chain = new SequentialWorkflow().addNode(() => 'step1').addNode((_c, r) => `echo:${String(r.input)}`);
    const output = await toPromise(createActor(chain.toMachine(), { input: { request: 'x' } }).start());
    expect(output.outputText).toBe('echo:step1');
    expect(output.path).toEqual(['step-1', 'step-2']);
  });

  it('persists a snapshot as JSON at any step and continues from it in a new actor', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let bRuns = 0;
    let bStarted!: () => void;
    const bInFlight = new Promise<void>((r) => (bStarted = r));
    const graph = new StateGraph()
      .addNode('a', (ctx) => {
        ctx.put('fromA', 1);
        return 'A';
      })
      .addNode('b', async (ctx, r) => {
        bRuns++;
        bStarted();
        if (bRuns === 1) await gate;
        return `${String(r.input)}+B${ctx.get<number>('fromA')}`;
      })
      .start('a')
      .addEdge('a', 'b');
    const first = createActor(graph.toMachine(), { input: { request: 'go', runId: 'p1' } }).start();
    await bInFlight;
    const json = serializeSnapshot(first.getPersistedSnapshot());
    first.stop();
    release();
    const restored = createActor(graph.toMachine(), { snapshot: JSON.parse(json), input: { request: 'ignored when restoring' } }).start();
    const output = await toPromise(restored);
    // The node in flight when the snapshot was taken runs again (at-least-once).
    expect(bRuns).toBe(2);
    expect(output).toMatchObject({ runId: 'p1', status: 'completed', outputText: 'A+B1', path: ['a', 'b'], steps: 2 });
  });

  it('refuses a non-JSON state value where it is written, in memory too, naming the key and the node', async () => {
    const graph = new StateGraph().addNode('a', (ctx) => {
      ctx.put('cache', new Map([['k', 1]]));
      return 'A';
    }).start('a');
    const output = await toPromise(createActor(graph.toMachine(), { input: { request: 'x' } }).start());
    expect(output.status).toBe('failed');
    expect(output.error).toMatchObject({ name: 'StateValidationError', code: 'state_not_json' });
    expect(output.error!.message).toMatch(/state key "cache" \(written by node "a"\) holds a Map/);
    expect(() => serializeSnapshot({ context: { state: { at: new Date(0) } } })).toThrow(/snapshot\.context\.state\.at holds a Date/);
  });
});
