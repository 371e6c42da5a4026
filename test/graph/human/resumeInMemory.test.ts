import { describe, expect, it } from 'vitest';
import { END, MemoryRecorder, StateGraph, cancelRun, defaultMemoryStore, humanNode, resumeRun, type WorkflowEvent } from '../../../src/index.js';
import { approvalGraph } from '../../fixtures/durableGraphs.js';

/** draft → ask (human) → check → (ask again | done): waits twice when the first answer is "unsure". */
function twiceGraph() {
  return new StateGraph({ name: 'twice' })
    .addNode('draft', () => 'draft text')
    .addNode('ask', humanNode({ reason: (ctx) => `round ${(ctx.get<number>('round') ?? 0) + 1}` }))
    .addNode('check', (ctx, r) => {
      ctx.put('round', (ctx.get<number>('round') ?? 0) + 1);
      return `checked ${String(r.input)}`;
    })
    .start('draft')
    .addEdge('draft', 'ask')
    .addEdge('ask', 'check')
    .addConditionalEdges('check', (ctx) => (ctx.get('humanReply') === 'unsure' ? 'ask' : END));
}

describe('a run without a store', () => {
  it('is held in memory while it waits and resumes in the same process', async () => {
    const graph = approvalGraph();
    const run = await graph.run('SO77');
    expect(run).toMatchObject({ status: 'waiting', waiting: { nodeId: 'approve', reason: 'approve a refund of 599 CNY' } });
    expect(await defaultMemoryStore.getRun(run.runId)).toMatchObject({ status: 'waiting', graphName: 'approval', waitReason: 'approve a refund of 599 CNY' });

    const resumed = await resumeRun(graph, run.runId, { reply: 'approved by Ana' });
    expect(resumed).toMatchObject({ status: 'completed', path: ['draft', 'approve', 'finish'], outputText: 'finished: approved by Ana (reply=approved by Ana)' });
    expect(resumed.state.get('amount')).toBe(599);
    expect(await defaultMemoryStore.getRun(run.runId)).toMatchObject({ status: 'completed', outputText: resumed.outputText, owner: null });
    await expect(resumeRun(graph, run.runId, { reply: 'again' })).rejects.toMatchObject({ name: 'RunStateError', code: 'run_finished' });
  });

  it('waits again at the same node after a reply and continues the event sequence across legs', async () => {
    const graph = twiceGraph();
    const first = new MemoryRecorder();
    const run = await graph.run('go', { recorders: [first] });
    expect(run.waiting?.reason).toBe('round 1');
    const second = new MemoryRecorder();
    const again = await resumeRun(graph, run.runId, { reply: 'unsure' }, { recorders: [second] });
    expect(again).toMatchObject({ status: 'waiting', waiting: { nodeId: 'ask', reason: 'round 2' }, path: ['draft', 'ask', 'check', 'ask'] });
    const events: WorkflowEvent[] = [];
    const done = await resumeRun(graph, run.runId, { reply: 'yes' }, { onEvent: (e) => events.push(e) });
    expect(done).toMatchObject({ status: 'completed', outputText: 'checked yes', path: ['draft', 'ask', 'check', 'ask', 'check'] });
    const seqs = [...first.events, ...second.events].map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(events[0]).toMatchObject({ type: 'run.resumed', cause: 'reply', atNodeId: 'ask', seq: seqs.length + 1 });
  });

  it('says why a run cannot be resumed: unknown, not held, changed graph, cancelled', async () => {
    await expect(resumeRun(approvalGraph(), 'never-started', { reply: 'x' })).rejects.toMatchObject({ code: 'run_not_found', message: expect.stringContaining('pass `store`') });
    const run = await approvalGraph().run('SO1');
    await expect(resumeRun(twiceGraph(), run.runId, { reply: 'x' })).rejects.toMatchObject({ code: 'graph_changed' });
    await cancelRun(defaultMemoryStore, run.runId);
    await expect(resumeRun(approvalGraph(), run.runId, { reply: 'late' })).rejects.toMatchObject({ code: 'run_finished' });
  });

  it('fails a wait that cannot be held, naming the key, instead of waiting forever', async () => {
    const graph = new StateGraph({ name: 'dated' })
      .addNode('a', (ctx) => {
        ctx.put('when', new Map([['k', 1]]));
        return 'a';
      })
      .addNode('ask', humanNode())
      .start('a')
      .addEdge('a', 'ask');
    const run = await graph.run('x');
    expect(run.status).toBe('failed');
    // The Map is refused where it is written (state_not_json), so the run never reaches the wait.
    expect(run.error).toMatchObject({ code: 'state_not_json', message: expect.stringContaining('when') });
    expect(await defaultMemoryStore.getRun(run.runId)).toBeNull();
  });

  it('reuses the id of a finished run, and refuses the id of a run still waiting', async () => {
    const graph = approvalGraph();
    const runId = `reused-${Date.now()}`;
    await graph.run('SO1', { runId });
    await expect(graph.run('SO2', { runId })).rejects.toMatchObject({ code: 'run_conflict' });
    await resumeRun(graph, runId, { reply: 'ok' });
    const again = await graph.run('SO3', { runId });
    expect(again.status).toBe('waiting');
    expect((await resumeRun(graph, runId, { reply: 'fine' })).outputText).toBe('finished: fine (reply=fine)');
  });
});
