import { describe, expect, it } from 'vitest';
import { GraphDefinitionError, StateGraph } from '../../src/index.js';

const selfLoop = (maxSteps?: number) =>
  new StateGraph(maxSteps === undefined ? {} : { maxSteps })
    .addNode('spin', (_ctx, r) => `${String(r.input)}+`)
    .start('spin')
    .addEdge('spin', 'spin');

describe('the maxSteps fuse', () => {
  it('ends a self-loop with maxSteps 3 as max-steps after 3 runs, keeping the last result', async () => {
    const run = await selfLoop(3).run('');
    expect(run.status).toBe('max-steps');
    expect(run.steps).toBe(3);
    expect(run.path).toEqual(['spin', 'spin', 'spin']);
    expect(run.outputText).toBe('+++');
  });

  it('defaults to 32 node executions', async () => {
    const run = await selfLoop().run('');
    expect(run.status).toBe('max-steps');
    expect(run.steps).toBe(32);
  });

  it('reports completed when the graph ends by itself on exactly the last allowed step', async () => {
    const graph = new StateGraph({ maxSteps: 3 })
      .addNode('a', () => 'a')
      .addNode('b', () => 'b')
      .addNode('c', () => 'c')
      .start('a')
      .addEdge('a', 'b')
      .addEdge('b', 'c');
    const run = await graph.run('x');
    expect(run.status).toBe('completed');
    expect(run.steps).toBe(3);
  });

  it('reports completed when the last allowed step routes to END', async () => {
    const graph = new StateGraph({ maxSteps: 2 })
      .addNode('a', () => 'a')
      .addNode('b', () => 'b')
      .start('a')
      .addEdge('a', 'b')
      .addConditionalEdges('b', () => '__end__');
    expect((await graph.run('x')).status).toBe('completed');
  });

  it('lets RunOptions.maxSteps and maxSteps(n) override the default', async () => {
    expect((await selfLoop().maxSteps(5).run('')).steps).toBe(5);
    expect((await selfLoop(10).run('', { maxSteps: 2 })).steps).toBe(2);
  });

  it('counts a node that throws', async () => {
    const graph = new StateGraph({ maxSteps: 1 }).addNode('boom', () => {
      throw new Error('no');
    }).start('boom');
    const run = await graph.run('x');
    expect(run.status).toBe('failed');
    expect(run.steps).toBe(1);
    expect(run.path).toEqual(['boom']);
  });

  it.each([0, -1, 1.5, Number.NaN, '3', Number.POSITIVE_INFINITY])('rejects maxSteps %s everywhere it can be set', async (bad) => {
    expect(() => new StateGraph({ maxSteps: bad as number })).toThrow(GraphDefinitionError);
    expect(() => new StateGraph().maxSteps(bad as number)).toThrow(/maxSteps must be a positive integer/);
    await expect(selfLoop().run('', { maxSteps: bad as number })).rejects.toBeInstanceOf(GraphDefinitionError);
  });
});
