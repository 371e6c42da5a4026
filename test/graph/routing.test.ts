import { describe, expect, it } from 'vitest';
import { END, StateGraph, type AgentRequest, type AgentResult } from '../../src/index.js';

const echo = (text: string) => () => text;

describe('StateGraph routing', () => {
  it('routes start → router → cold | warm and returns the chosen branch', async () => {
    const graph = new StateGraph({ name: 'weather' })
      .addNode('start', (_ctx, r) => String(r.input))
      .addNode('cold', () => 'wear a coat')
      .addNode('warm', () => 'wear a t-shirt')
      .start('start')
      .addConditionalEdges('start', (_ctx, r) => (String(r.input).includes('cold') ? 'cold' : 'warm'));
    const run = await graph.run('it is cold outside');
    expect(run.outputText).toBe('wear a coat');
    expect(run.path).toEqual(['start', 'cold']);
    expect(run.status).toBe('completed');
  });

  it('loops while a condition on the state holds, then moves on', async () => {
    const graph = new StateGraph()
      .addNode('loop', (ctx) => {
        ctx.put('count', (ctx.get<number>('count') ?? 0) + 1);
        return null;
      })
      .addNode('done', (ctx) => `count=${ctx.get<number>('count')}`)
      .start('loop')
      .addTransition('loop', 'loop', (ctx) => (ctx.get<number>('count') ?? 0) < 3)
      .addEdge('loop', 'done');
    const run = await graph.run('go');
    expect(run.path).toEqual(['loop', 'loop', 'loop', 'done']);
    expect(run.outputText).toBe('count=3');
    expect(run.state.get('count')).toBe(3);
  });

  it('prefers a conditional group registered after an earlier addEdge', async () => {
    const graph = new StateGraph()
      .addNode('a', echo('a'))
      .addNode('b', echo('b'))
      .addNode('c', echo('c'))
      .start('a')
      .addEdge('a', 'b')
      .addConditionalEdges('a', () => 'c');
    expect((await graph.run('x')).path).toEqual(['a', 'c']);
  });

  it('falls through a route-map miss to a later group, and a null router to the transitions', async () => {
    const calls: string[] = [];
    const graph = new StateGraph()
      .addNode('a', echo('a'))
      .addNode('b', echo('b'))
      .addNode('c', echo('c'))
      .addNode('d', echo('d'))
      .start('a')
      .addConditionalEdges('a', (): string => (calls.push('g1'), 'unmapped'), { yes: 'b' })
      .addConditionalEdges('a', () => (calls.push('g2'), 'go'), { go: 'c' })
      .addEdge('a', 'd');
    expect((await graph.run('x')).path).toEqual(['a', 'c']);
    expect(calls).toEqual(['g1', 'g2']);

    const toTransition = new StateGraph()
      .addNode('a', echo('a'))
      .addNode('b', echo('b'))
      .addNode('d', echo('d'))
      .start('a')
      .addConditionalEdges('a', (): string => 'miss', { yes: 'b' })
      .addConditionalEdges('a', () => null)
      .addEdge('a', 'd');
    expect((await toTransition.run('x')).path).toEqual(['a', 'd']);
  });

  it('stops the search at a transition to END: later conditions are never called', async () => {
    let laterCalled = false;
    const graph = new StateGraph()
      .addNode('a', echo('a'))
      .addNode('b', echo('b'))
      .start('a')
      .addTransition('a', 'b', () => false)
      .addTransition('a', END, () => true)
      .addTransition('a', 'b', () => {
        laterCalled = true;
        return true;
      });
    const run = await graph.run('x');
    expect(run.path).toEqual(['a']);
    expect(run.status).toBe('completed');
    expect(laterCalled).toBe(false);
  });

  it('ends normally when nothing matches', async () => {
    const graph = new StateGraph().addNode('a', echo('a')).addNode('b', echo('b')).start('a').addTransition('a', 'b', () => false);
    const events: string[] = [];
    const run = await graph.run('x', { onEvent: (e) => events.push(e.type === 'edge.traversed' ? `${e.type}:${String(e.to)}:${String(e.kind)}` : e.type) });
    expect(run.status).toBe('completed');
    expect(run.path).toEqual(['a']);
    expect(events).toContain(`edge.traversed:${END}:end`);
  });

  it('ends through a router that returns END or a route map that maps to END', async () => {
    const direct = new StateGraph().addNode('a', echo('a')).addNode('b', echo('b')).start('a').addEdge('a', 'b').addConditionalEdges('a', () => END);
    expect((await direct.run('x')).path).toEqual(['a']);
    const mapped = new StateGraph().addNode('a', echo('a')).addNode('b', echo('b')).start('a').addEdge('a', 'b').addConditionalEdges('a', () => 'stop', { stop: END });
    expect((await mapped.run('x')).path).toEqual(['a']);
  });

  it('calls each router and condition exactly once per step, with the rewritten request and the result', async () => {
    const routerCalls: Array<[AgentRequest, AgentResult | null]> = [];
    const conditionCalls: Array<[AgentRequest, AgentResult | null]> = [];
    const graph = new StateGraph()
      .addNode('a', () => ({ outputText: 'from-a', usage: { totalTokens: 3 } }))
      .addNode('b', echo('b'))
      .start('a')
      .addConditionalEdges('a', (_ctx, request, result) => {
        routerCalls.push([request, result]);
        return null;
      })
      .addTransition('a', 'b', (_ctx, request, result) => {
        conditionCalls.push([request, result]);
        return true;
      });
    await graph.run({ input: 'original', metadata: { tenant: 't1' } });
    const expected: [AgentRequest, AgentResult] = [
      { input: 'from-a', metadata: { tenant: 't1' } },
      { outputText: 'from-a', usage: { totalTokens: 3 } },
    ];
    expect(routerCalls).toEqual([expected]);
    expect(conditionCalls).toEqual([expected]);
  });

  it('keeps writes a router makes to the state', async () => {
    const graph = new StateGraph()
      .addNode('route', () => null)
      .addNode('weather', (ctx) => `decided ${ctx.get<string>('route')}`)
      .start('route')
      .addConditionalEdges('route', (ctx) => {
        ctx.put('route', 'weather');
        return 'weather';
      });
    const run = await graph.run('x');
    expect(run.outputText).toBe('decided weather');
    expect(run.state.get('route')).toBe('weather');
  });

  it('passes the same request on when a node returns null, and passes "" on', async () => {
    const inputs: unknown[] = [];
    const record = (out: string | null) => (_ctx: unknown, r: AgentRequest) => {
      inputs.push(r.input);
      return out;
    };
    const graph = new StateGraph()
      .addNode('a', record(null))
      .addNode('b', record(''))
      .addNode('c', record(null))
      .addNode('d', (_ctx, r) => {
        inputs.push(r.input);
        return undefined;
      })
      .start('a')
      .addEdge('a', 'b')
      .addEdge('b', 'c')
      .addEdge('c', 'd');
    const run = await graph.run('first');
    expect(inputs).toEqual(['first', 'first', '', '']);
    expect(run.result).toBeNull();
    expect(run.outputText).toBeNull();
  });

  it('treats a string result as { outputText } and an object result as is', async () => {
    const graph = new StateGraph()
      .addNode('a', async () => 'text')
      .addNode('b', (_ctx, r) => ({ outputText: `${String(r.input)}!`, toolCalls: [{ name: 't' }] }))
      .start('a')
      .addEdge('a', 'b');
    const run = await graph.run('x');
    expect(run.result).toEqual({ outputText: 'text!', toolCalls: [{ name: 't' }] });
  });

  it('re-runs a node on a self-loop', async () => {
    let runs = 0;
    const graph = new StateGraph()
      .addNode('self', () => {
        runs++;
        return String(runs);
      })
      .start('self')
      .addTransition('self', 'self', (_ctx, r) => Number(r.input) < 4);
    const run = await graph.run('0');
    expect(runs).toBe(4);
    expect(run.path).toEqual(['self', 'self', 'self', 'self']);
    expect(run.outputText).toBe('4');
  });

  it('seeds the state, uses the given runId and exposes the session', async () => {
    const session = { user: 'ada' };
    const graph = new StateGraph().addNode('a', (ctx) => `${ctx.runId}:${ctx.get<string>('seed')}:${(ctx.session as typeof session).user}`).start('a');
    const run = await graph.run('x', { runId: 'run-42', state: { seed: 's' }, session });
    expect(run.runId).toBe('run-42');
    expect(run.outputText).toBe('run-42:s:ada');
    const other = await graph.run('x', { session });
    expect(other.runId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('does not leak state between runs of the same graph', async () => {
    const graph = new StateGraph()
      .addNode('a', (ctx) => {
        const n = (ctx.get<number>('n') ?? 0) + 1;
        ctx.put('n', n);
        return String(n);
      })
      .start('a');
    expect((await graph.run('x')).outputText).toBe('1');
    expect((await graph.run('x')).outputText).toBe('1');
  });
});
