import { describe, expect, it } from 'vitest';
import { END, GraphDefinitionError, StateGraph, humanNode, lazyNode, type AgentNode } from '../../src/index.js';

describe('lazyNode', () => {
  it('loads the node on its first run only, and runs it as if it had been added directly (run and stream)', async () => {
    let loads = 0;
    const streamed: AgentNode = { name: 'inner', execute: () => 'executed', executeStream: (_ctx, _req, emit) => (emit({ type: 'inner.event' }), 'streamed') };
    const graph = new StateGraph({ name: 'lazy' })
      .addNode('a', lazyNode('a', async () => ((loads += 1), streamed)))
      .start('a')
      .addEdge('a', END);
    expect(loads).toBe(0);
    expect((await graph.run('x')).outputText).toBe('executed');
    const events: string[] = [];
    for await (const e of graph.stream('x')) events.push(e.type);
    expect(events).toContain('inner.event');
    expect(loads).toBe(1);
  });

  it('fails the run when the load fails, and loads again next time', async () => {
    let attempt = 0;
    const graph = new StateGraph({ name: 'lazy-fail' })
      .addNode('a', lazyNode('a', async () => {
        attempt += 1;
        if (attempt === 1) throw new Error('module missing');
        return () => 'second';
      }))
      .start('a');
    const first = await graph.run('x');
    expect(first.status).toBe('failed');
    expect((await graph.run('x')).outputText).toBe('second');
  });

  it('refuses a load that gives a human node or something that is not a node', async () => {
    const human = new StateGraph({ name: 'lazy-human' }).addNode('a', lazyNode('a', async () => humanNode())).start('a');
    const run = await human.run('x');
    expect(run.status).toBe('failed');
    expect(JSON.stringify(run.error)).toMatch(/human or self-compiling node/);
    const bad = await new StateGraph({ name: 'lazy-bad' }).addNode('a', lazyNode('a', async () => 42 as never)).start('a').run('x');
    expect(JSON.stringify(bad.error)).toMatch(/load returned 42/);
    expect(() => lazyNode('a', 'nope' as never)).toThrow(GraphDefinitionError);
  });
});
