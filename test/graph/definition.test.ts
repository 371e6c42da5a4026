import { describe, expect, it } from 'vitest';
import { END, GraphDefinitionError, StateGraph } from '../../src/index.js';

const noop = () => null;

describe('build-time checks', () => {
  it('rejects a run with no start node, in run() and in stream()', async () => {
    const graph = new StateGraph().addNode('a', noop);
    await expect(graph.run('x')).rejects.toThrow(GraphDefinitionError);
    await expect(graph.run('x')).rejects.toThrow(/start node is required/);
    const iterate = async () => {
      for await (const _ of graph.stream('x')) void _;
    };
    await expect(iterate()).rejects.toThrow(/start node is required/);
    expect(() => graph.toMachine()).toThrow(GraphDefinitionError);
  });

  it.each([
    ['blank', ''],
    ['whitespace', '  '],
  ])('rejects a %s node id', (_label, id) => {
    expect(() => new StateGraph().addNode(id, noop)).toThrow(/non-blank string/);
  });

  it('rejects a duplicate node id', () => {
    expect(() => new StateGraph().addNode('a', noop).addNode('a', noop)).toThrow(/addNode\("a"\): a node with this id already exists/);
  });

  it('rejects reserved ids, END included', () => {
    expect(() => new StateGraph().addNode('__secret', noop)).toThrow(GraphDefinitionError);
    expect(() => new StateGraph().addNode(END, noop)).toThrow(/reserved/);
  });

  it('rejects a node that is neither a function nor an AgentNode', () => {
    expect(() => new StateGraph().addNode('a', {} as never)).toThrow(/execute\(ctx, request\)/);
  });

  // Each of these is a compile error in a chained graph (its ids are typed); the build-time checks are for untyped use.
  it('rejects start on an unknown id', () => {
    // @ts-expect-error 'b' is not a node of this graph
    const graph = new StateGraph().addNode('a', noop).start('b');
    expect(() => graph.toMachine()).toThrow(/start node not found: b/);
  });

  it('rejects edges and transitions from or to unknown nodes, naming the node and the fix', () => {
    // @ts-expect-error 'zzz' is not a node of this graph
    const to = new StateGraph().addNode('a', noop).start('a').addEdge('a', 'zzz');
    expect(() => to.toMachine()).toThrow(/node not found: zzz; add it with addNode\("zzz", …\) or use END/);
    // @ts-expect-error 'ghost' is not a node of this graph
    const from = new StateGraph().addNode('a', noop).start('a').addTransition('ghost', 'a', () => true);
    expect(() => from.toMachine()).toThrow(/node not found: ghost/);
    // @ts-expect-error 'nowhere' is not a node of this graph
    const group = new StateGraph().addNode('a', noop).start('a').addConditionalEdges('nowhere', () => 'a');
    expect(() => group.toMachine()).toThrow(/node not found: nowhere/);
  });

  it('rejects a route-map value that is not a node or END', async () => {
    // @ts-expect-error 'missing' is not a node of this graph
    const graph = new StateGraph().addNode('a', noop).start('a').addConditionalEdges('a', () => 'k', { k: 'missing' });
    expect(() => graph.toMachine()).toThrow(/route map key "k" points to unknown node "missing"/);
    await expect(graph.run('x')).rejects.toBeInstanceOf(GraphDefinitionError);
  });

  it('rejects a router or condition that is not a function, and a bad route map', () => {
    expect(() => new StateGraph().addConditionalEdges('a', 'a' as never)).toThrow(GraphDefinitionError);
    expect(() => new StateGraph().addTransition('a', 'b', true as never)).toThrow(GraphDefinitionError);
    expect(() => new StateGraph().addConditionalEdges('a', noop, [] as never)).toThrow(/routeMap must be an object/);
  });

  it('rejects run input that is neither a string nor a request', async () => {
    const graph = new StateGraph().addNode('a', noop).start('a');
    await expect(graph.run(42 as never)).rejects.toThrow(/string or an AgentRequest/);
    await expect(graph.run('x', { state: new Map() as never })).rejects.toThrow(/plain object/);
  });

  it('accepts ids XState would read as paths, and reserved state names', async () => {
    const graph = new StateGraph()
      .addNode('a.b', () => 'dot')
      .addNode('#c', (_ctx, r) => `${String(r.input)}-hash`)
      .addNode('completed', (_ctx, r) => `${String(r.input)}-completed`)
      .addNode('50%', (_ctx, r) => `${String(r.input)}-pct`)
      .start('a.b')
      .addEdge('a.b', '#c')
      .addEdge('#c', 'completed')
      .addConditionalEdges('completed', () => '50%');
    const run = await graph.run('x');
    expect(run.path).toEqual(['a.b', '#c', 'completed', '50%']);
    expect(run.outputText).toBe('dot-hash-completed-pct');
    expect(run.status).toBe('completed');
  });

  it('recompiles after the graph changes', async () => {
    const graph = new StateGraph().addNode('a', () => 'a').start('a');
    const first = graph.toMachine();
    expect(graph.toMachine()).toBe(first);
    graph.addNode('b', () => 'b').addEdge('a', 'b');
    expect(graph.toMachine()).not.toBe(first);
    expect((await graph.run('x')).path).toEqual(['a', 'b']);
  });
});
