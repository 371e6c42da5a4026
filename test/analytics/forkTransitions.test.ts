import { describe, expect, it } from 'vitest';
import { END, StateGraph, TransitionRecorder, analyzeTransitions, forkRun, humanNode, resumeRun, storedTransitions, type TransitionRecord } from '../../src/index.js';
import { memoryTarget, postgresTarget, sqliteTarget, useStoreTarget } from '../persistence/storeTargets.js';

/**
 * start → a → b → (c when the state has no `detour`, else d) → END, each node spending tokens;
 * with `ask`, a human node between a and b.
 */
function graphOf(name: string, ask: boolean) {
  const spend = (id: string, tokens: number) => () => ({ outputText: id, usage: { inputTokens: tokens, outputTokens: 0 } });
  const graph = new StateGraph({ name })
    .addNode('a', spend('a', 1))
    .addNode('b', spend('b', 10))
    .addNode('c', spend('c', 100))
    .addNode('d', spend('d', 1000))
    .start('a')
    .addConditionalEdges('b', (ctx) => (ctx.get('detour') === true ? 'd' : 'c'))
    .addEdge('c', END)
    .addEdge('d', END);
  if (ask) graph.addNode('ask', humanNode({ reason: () => 'go on?' })).addEdge('a', 'ask').addEdge('ask', 'b');
  else graph.addEdge('a', 'b');
  return graph;
}

const moves = (records: readonly TransitionRecord[], runId: string) =>
  records.filter((r) => r.runId === runId).map((r) => `${r.from}>${r.to} ${r.tokens}`);

describe.each([
  ['memory', memoryTarget],
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
] as const)('transitions of a forked run (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('are only the steps the fork took itself: the replayed ones are the parent\'s, not counted again', async () => {
    const { store } = target();
    const graph = graphOf('fork-transitions', false);
    const parent = await graph.run('go', { store });
    expect(parent.path).toEqual(['a', 'b', 'c']);
    const live = new TransitionRecorder();
    const fork = await forkRun(graph, parent.runId, { at: 2, state: { detour: true } }, { store, recorders: [live] });
    expect(fork.path).toEqual(['a', 'b', 'd']);
    // Steps 1 and 2 (a, b) are replayed: the fork starts at b's edge, which its edited state chose,
    // and b's tokens were spent by the parent, not by the fork.
    const own = ['b>d 0', 'd>__end__:completed 1000'];
    expect(moves(live.records, fork.runId)).toEqual(own);
    const stored = await storedTransitions(store);
    expect(moves(stored, parent.runId)).toEqual(['__start__>a 0', 'a>b 1', 'b>c 10', 'c>__end__:completed 100']);
    expect(moves(stored, fork.runId)).toEqual(own);
    // Counted once each: one start, one a → b.
    const analysis = analyzeTransitions(stored);
    expect(stored.filter((r) => r.from === '__start__')).toHaveLength(1);
    const row = analysis.matrix[analysis.states.indexOf('b')]!;
    expect(row[analysis.states.indexOf('c')]).toBe(0.5);
    expect(row[analysis.states.indexOf('d')]).toBe(0.5);
    expect(row[analysis.states.indexOf('a')]).toBe(0);
    expect(stored.reduce((sum, r) => sum + r.tokens, 0)).toBe(1 + 10 + 100 + 1000);
  });

  it('of a fork are only its own steps too', async () => {
    const { store } = target();
    const graph = graphOf('fork-transitions-twice', false);
    const parent = await graph.run('go', { store });
    const once = await forkRun(graph, parent.runId, { at: 2, state: { detour: true } }, { store });
    const twice = await forkRun(graph, once.runId, { at: 3 }, { store });
    expect(twice.path).toEqual(['a', 'b', 'd']);
    const stored = await storedTransitions(store);
    expect(moves(stored, once.runId)).toEqual(['b>d 0', 'd>__end__:completed 1000']);
    expect(moves(stored, twice.runId)).toEqual(['d>__end__:completed 0']);
  });

  it('keep the end of a fork that failed while replaying (its router went another way than the parent\'s)', async () => {
    const { store } = target();
    let flip = false;
    const graph = new StateGraph({ name: 'fork-transitions-astray' })
      .addNode('a', () => 'a')
      .addNode('b', () => 'b')
      .addNode('c', () => 'c')
      .addNode('d', () => 'd')
      .start('a')
      .addEdge('a', 'b')
      .addConditionalEdges('b', () => (flip ? 'd' : 'c'))
      .addEdge('c', END)
      .addEdge('d', END);
    const parent = await graph.run('go', { store });
    flip = true;
    const astray = await forkRun(graph, parent.runId, { at: 3 }, { store });
    expect(astray.status).toBe('failed');
    expect(moves(await storedTransitions(store), astray.runId)).toEqual(['d>__end__:failed 0']);
  });

  it('give the end of a fork stopped while replaying none of the replayed step\'s tokens (its maxSteps spent before the fork\'s step)', async () => {
    const { store } = target();
    const graph = graphOf('fork-transitions-stopped', false);
    const parent = await graph.run('go', { store });
    const live = new TransitionRecorder();
    // At step 3 with room for 2 steps: a and b are replayed, then the fuse trips before c.
    const fork = await forkRun(graph, parent.runId, { at: 3 }, { store, maxSteps: 2, recorders: [live] });
    expect(fork.status).toBe('max-steps');
    expect(fork.path).toEqual(['a', 'b']);
    // b's 10 tokens were the parent's (its b > c holds them): the fork's end spent nothing.
    expect(moves(live.records, fork.runId)).toEqual(['b>__end__:max-steps 0']);
    const stored = await storedTransitions(store);
    expect(moves(stored, fork.runId)).toEqual(['b>__end__:max-steps 0']);
    expect(stored.reduce((sum, r) => sum + r.tokens, 0)).toBe(1 + 10 + 100);
  });

  it('start over from step 0 as a run of their own', async () => {
    const { store } = target();
    const graph = graphOf('fork-transitions-zero', false);
    const parent = await graph.run('go', { store });
    const fork = await forkRun(graph, parent.runId, { at: 0, state: { detour: true } }, { store });
    expect(moves(await storedTransitions(store), fork.runId)).toEqual(['__start__>a 0', 'a>b 1', 'b>d 10', 'd>__end__:completed 1000']);
  });

  it('leave out a human node\'s replayed wait and reply, and keep what follows the fork\'s step', async () => {
    const { store } = target();
    const graph = graphOf('fork-transitions-human', true);
    const first = await graph.run('go', { store });
    expect(first.status).toBe('waiting');
    const parent = await resumeRun(graph, first.runId, { reply: 'yes' }, { store });
    expect(parent.path).toEqual(['a', 'ask', 'b', 'c']);
    for (const at of [2, 3]) {
      const fork = await forkRun(graph, parent.runId, { at, ...(at === 3 ? { state: { detour: true } } : {}) }, { store });
      expect(fork.status, `at ${at}`).toBe('completed');
      const expected = at === 2 ? ['ask>b 0', 'b>c 10', 'c>__end__:completed 100'] : ['b>d 0', 'd>__end__:completed 1000'];
      expect(moves(await storedTransitions(store), fork.runId), `at ${at}`).toEqual(expected);
    }
  });
});
