import { describe, expect, it } from 'vitest';
import { runViewAt } from '../../web/app/runView.js';
import { approvalGraph, lookupLoopGraph } from '../fixtures/workbenchGraphs.js';
import { testWorkbench } from '../server/workbenchTarget.js';

describe('the page’s run view', () => {
  const wb = testWorkbench({ graphs: [lookupLoopGraph(1), approvalGraph()] });

  const eventsOf = async (runId: string) => (await wb.json(`/api/runs/${runId}/events`)).body as Array<Record<string, unknown>>;

  it('separates loop rounds and counts visits and traversed edges at every point of the timeline', async () => {
    const { body } = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'lookup-loop', message: 'go' } });
    const events = await eventsOf(body.runId);
    const end = runViewAt(events, events.length);
    expect(end.status).toBe('completed');
    expect(end.answer).toContain('Looked it up 2 times');
    expect(end.visits.get('execute')).toBe(2);
    expect(end.traversed.get('execute→plan')).toBe(2);
    const rounds = end.spans.get('execute')!;
    expect(rounds.map((r) => [r.round, r.status, r.delta?.set.executed])).toEqual([
      [1, 'completed', 1],
      [2, 'completed', 2],
    ]);
    expect(rounds[0]!.spanId).not.toBe(rounds[1]!.spanId);

    const firstExecute = events.findIndex((e) => e.type === 'node.started' && e.nodeId === 'execute') + 1;
    const midway = runViewAt(events, firstExecute);
    expect([...midway.activeNodes]).toEqual(['execute']);
    expect(midway.spans.get('execute')).toHaveLength(1);
    expect(midway.spans.get('execute')![0]!.status).toBe('running');
    expect(midway.answer).toBeNull();
    expect(runViewAt(events, 0).status).toBe('none');
  });

  it('shows a waiting node, then completes its round with the reply in the next leg', async () => {
    const { body } = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'approval', message: 'go' } });
    const waiting = await eventsOf(body.runId);
    expect(runViewAt(waiting, waiting.length)).toMatchObject({ status: 'waiting', waiting: { nodeId: 'human', reason: 'a person must approve' } });
    await wb.json(`/api/runs/${body.runId}/resume?wait=true`, { method: 'POST', json: { reply: 'ok' } });
    const all = await eventsOf(body.runId);
    const view = runViewAt(all, all.length);
    expect(view.status).toBe('completed');
    expect(view.waiting).toBeNull();
    expect(view.spans.get('human')).toMatchObject([{ round: 1, status: 'completed', output: 'ok', delta: { set: { humanReply: 'ok' } } }]);
    expect([...view.lanes.keys()]).toEqual(['root']);
    await wb.shutdown();
  });

  it('groups events by trace path into lanes', () => {
    const at = 1;
    const e = (seq: number, type: string, path: string, extra: Record<string, unknown> = {}) => ({ seq, type, path, at, spanId: `s${seq}`, ...extra });
    const view = runViewAt(
      [
        e(1, 'run.started', 'root'),
        e(2, 'node.started', 'root', { nodeId: 'specialist', spanId: 'p' }),
        e(3, 'node.started', 'root/tool[1]', { nodeId: 'lookup', spanId: 't1' }),
        e(4, 'node.started', 'root/rag[2]', { nodeId: 'retrieve', spanId: 'r1' }),
        e(5, 'node.completed', 'root/rag[2]', { nodeId: 'retrieve', spanId: 'r1', durationMs: 3 }),
        e(6, 'node.completed', 'root/tool[1]', { nodeId: 'lookup', spanId: 't1', durationMs: 5 }),
      ],
      6,
    );
    expect([...view.lanes.keys()]).toEqual(['root', 'root/tool[1]', 'root/rag[2]']);
    expect(view.lanes.get('root/tool[1]')!.map((i) => i.label)).toEqual(['▶ lookup', '✓ lookup 5 ms']);
    expect([...view.activeNodes]).toEqual(['specialist']);
    expect(view.visits.has('lookup')).toBe(false); // specialists' nodes are not the root graph's
  });
});


describe('the page’s run view of routing diagnostics', () => {
  it('keeps a router answer its route map did not have on the round it routed from, and lists it', async () => {
    const { unmatchedRouteGraph } = await import('../fixtures/unmatchedRouteGraph.js');
    const wb = testWorkbench({ graphs: [unmatchedRouteGraph()] });
    try {
      const { body } = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'unmatched', message: 'go' } });
      const events = (await wb.json(`/api/runs/${body.runId}/events`)).body as Array<Record<string, unknown>>;
      const view = runViewAt(events, events.length);
      expect(view.unmatched).toEqual([{ nodeId: 'review', group: 0, answer: 'acept', routeKeys: ['accept', 'revise'], path: 'root' }]);
      expect(view.spans.get('review')![0]!.unmatched).toEqual([{ group: 0, answer: 'acept', routeKeys: ['accept', 'revise'], path: 'root' }]);
      expect(view.lanes.get('root')!.map((l) => l.label)).toContain('⚠ review: "acept" not in route map (accept, revise)');
      // Before the event, nothing is listed.
      const before = events.findIndex((e) => e.type === 'route.unmatched');
      expect(runViewAt(events, before).unmatched).toEqual([]);
    } finally {
      await wb.shutdown();
    }
  });
});
