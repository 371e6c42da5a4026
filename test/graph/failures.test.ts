import { describe, expect, it } from 'vitest';
import { StateGraph, SwitchboardError, WorkflowExecutionError } from '../../src/index.js';

describe('failures inside a run', () => {
  it('ends failed when a node throws, with a Switchboard error naming the node and the cause', async () => {
    const thrown = new Error('database is down');
    const graph = new StateGraph()
      .addNode('fetch', () => {
        throw thrown;
      })
      .addNode('after', () => 'never')
      .start('fetch')
      .addEdge('fetch', 'after');
    const run = await graph.run('x');
    expect(run.status).toBe('failed');
    expect(run.path).toEqual(['fetch']);
    expect(run.error).toBeInstanceOf(SwitchboardError);
    expect(run.error?.code).toBe('node_failed');
    expect(run.error?.message).toContain('fetch');
    expect(run.error?.message).toContain('database is down');
    expect(run.error?.cause).toBe(thrown);
  });

  it('ends failed when an async node rejects with a non-Error value', async () => {
    const graph = new StateGraph()
      .addNode('a', async () => {
        throw { reason: 'nope' };
      })
      .start('a');
    const run = await graph.run('x');
    expect(run.status).toBe('failed');
    expect(run.error?.cause).toEqual({ reason: 'nope' });
  });

  it('ends failed when a router throws', async () => {
    const thrown = new TypeError('bad router');
    const graph = new StateGraph()
      .addNode('a', () => 'a')
      .addNode('b', () => 'b')
      .start('a')
      .addConditionalEdges('a', () => {
        throw thrown;
      })
      .addEdge('a', 'b');
    const run = await graph.run('x');
    expect(run.status).toBe('failed');
    expect(run.path).toEqual(['a']);
    expect(run.error).toBeInstanceOf(WorkflowExecutionError);
    expect(run.error?.code).toBe('route_failed');
    expect(run.error?.message).toContain('"a"');
    expect(run.error?.cause).toBe(thrown);
    expect(run.outputText).toBe('a');
  });

  it('ends failed when a condition throws', async () => {
    const graph = new StateGraph()
      .addNode('a', () => 'a')
      .addNode('b', () => 'b')
      .start('a')
      .addTransition('a', 'b', () => {
        throw new Error('condition broke');
      });
    const run = await graph.run('x');
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('route_failed');
    expect(run.error?.message).toContain('condition broke');
  });

  it('ends failed with "node not found" when a router names an unknown node', async () => {
    // Ids as plain strings (in a chained graph tsc refuses the unknown id).
    const graph = new StateGraph<null, string>().addNode('a', () => 'a').start('a').addConditionalEdges('a', () => 'ghost');
    const run = await graph.run('x');
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('node_not_found');
    expect(run.error?.message).toContain('node not found: ghost');
  });

  it('ends failed when a node returns something that is not a result', async () => {
    const graph = new StateGraph().addNode('a', (() => 42) as never).start('a');
    const run = await graph.run('x');
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('invalid_node_result');
    expect(run.error?.message).toMatch(/node "a" returned a number/);
  });

  it('lets nothing escape as an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const graph = new StateGraph()
        .addNode('a', async () => {
          await new Promise((r) => setTimeout(r, 1));
          throw new Error('late');
        })
        .start('a');
      await graph.run('x');
      await graph.run('y');
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});
