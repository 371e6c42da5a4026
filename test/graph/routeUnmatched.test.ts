import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { SqliteRunStore, StateGraph, WorkflowExecutionError, humanNode, isEngineEvent, resumeRun, type WorkflowEvent } from '../../src/index.js';
import { unmatchedRouteGraph } from '../fixtures/unmatchedRouteGraph.js';

const collect = async (events: AsyncIterable<WorkflowEvent>) => {
  const out: WorkflowEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
};

describe('routing diagnostics', () => {
  it('reports a router answer missing from its route map, then the hop routing took instead', async () => {
    const events = await collect(unmatchedRouteGraph().stream('go'));
    const run = (events.at(-1) as { run: { status: string; path: string[] } }).run;
    // ai4j's rule is kept: the group is skipped and routing goes on (here, to the transition).
    expect(run).toMatchObject({ status: 'completed', path: ['review', 'fallback'] });
    const unmatched = events.filter((e) => isEngineEvent(e, 'route.unmatched'));
    expect(unmatched).toHaveLength(1);
    expect(unmatched[0]).toMatchObject({ type: 'route.unmatched', nodeId: 'review', step: 1, group: 0, answer: 'acept', routeKeys: ['accept', 'revise'] });
    const types = events.map((e) => e.type);
    expect(types.slice(types.indexOf('node.completed'), types.indexOf('node.completed') + 3)).toEqual(['node.completed', 'route.unmatched', 'edge.traversed']);
    expect(events.find((e) => e.type === 'edge.traversed')).toMatchObject({ from: 'review', to: 'fallback', kind: 'transition' });
  });

  it('reports nothing for a router returning null (an explicit skip) or an answer the map has', async () => {
    const graph = new StateGraph({ name: 'quiet' })
      .addNode('a', () => null)
      .addNode('b', () => null)
      .start('a')
      .addConditionalEdges('a', () => null, { x: 'b' })
      .addConditionalEdges('a', () => 'go', { go: 'b' });
    const events = await collect(graph.stream('x'));
    expect(events.some((e) => e.type === 'route.unmatched')).toBe(false);
  });

  it('reports every skipped group of a step, in order, and still reports the routing failure after them', async () => {
    const graph = new StateGraph<null, string>({ name: 'two-misses' })
      .addNode('a', () => null)
      .addNode('b', () => null)
      .start('a')
      .addConditionalEdges('a', (): string => 'one', { uno: 'b' })
      .addConditionalEdges('a', (): string => 'two', { dos: 'b' })
      .addConditionalEdges('a', () => {
        throw new Error('third router broke');
      });
    const events = await collect(graph.stream('x'));
    expect(events.filter((e) => e.type === 'route.unmatched' || e.type === 'route.failed').map((e) => [e.type, (e as { answer?: string }).answer ?? null])).toEqual([
      ['route.unmatched', 'one'],
      ['route.unmatched', 'two'],
      ['route.failed', null],
    ]);
  });

  it('with strictRoutes fails the run with route_unmatched, naming the answer and the keys', async () => {
    const events = await collect(unmatchedRouteGraph(true).stream('go'));
    const run = (events.at(-1) as { run: { status: string; path: string[]; error: unknown } }).run;
    expect(run.status).toBe('failed');
    expect(run.path).toEqual(['review']);
    expect(run.error).toBeInstanceOf(WorkflowExecutionError);
    expect(run.error).toMatchObject({ code: 'route_unmatched', nodeId: 'review' });
    expect((run.error as Error).message).toContain('router #1 of node "review" answered "acept", which its route map does not have (keys: "accept", "revise")');
    expect(events.find((e) => e.type === 'route.failed')).toMatchObject({ error: { code: 'route_unmatched' } });
    expect(() => new StateGraph({ strictRoutes: 'yes' as never })).toThrow(/strictRoutes must be true or false/);
  });

  it('reports it after a human node’s reply, in a stored run resumed later, and fails it there with strictRoutes', async () => {
    const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-unmatched-')), 'runs.db') });
    const graph = (strictRoutes: boolean) =>
      new StateGraph<null, string>({ name: `ask-${strictRoutes}`, strictRoutes })
        .addNode('ask', humanNode({ reason: 'approve?' }))
        .addNode('done', () => 'done')
        .start('ask')
        .addConditionalEdges('ask', (_ctx, request) => String(request.input), { yes: 'done' })
        .addEdge('ask', 'done');
    const waiting = await graph(false).run('x', { store });
    const events: WorkflowEvent[] = [];
    const run = await resumeRun(graph(false), waiting.runId, { reply: 'maybe' }, { store, onEvent: (e) => events.push(e) });
    expect(run.status).toBe('completed');
    expect(events.find((e) => e.type === 'route.unmatched')).toMatchObject({ nodeId: 'ask', answer: 'maybe', routeKeys: ['yes'] });
    expect((await store.listEvents(run.runId)).some((e) => e.type === 'route.unmatched' && e.data.answer === 'maybe')).toBe(true);
    const strict = await graph(true).run('x', { store });
    const failed = await resumeRun(graph(true), strict.runId, { reply: 'maybe' }, { store });
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'route_unmatched' } });
    await store.close();
  });

  it('fails the step with strictRoutes when the machine runs by itself too', async () => {
    const actor = createActor(unmatchedRouteGraph(true).toMachine(), { input: { request: 'go' } }).start();
    await new Promise<void>((resolve) => actor.subscribe({ complete: resolve }));
    expect(actor.getSnapshot().output).toMatchObject({ status: 'failed', error: { code: 'route_unmatched' } });
  });
});
