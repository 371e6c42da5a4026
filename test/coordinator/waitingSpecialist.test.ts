import { describe, expect, it } from 'vitest';
import { Coordinator, StateGraph, cancelRun, defaultMemoryStore, humanNode, resumeRun, type TaskResult, type WorkflowEvent } from '../../src/index.js';
import { dispatchGraph } from '../fixtures/durableGraphs.js';

describe('a specialist that waits for a person (no store, one process)', () => {
  it('makes the coordinator wait, naming the specialist and its path; the reply reaches it and the join completes', async () => {
    const graph = dispatchGraph();
    const events: WorkflowEvent[] = [];
    const run = await graph.run('SO1, SO2, policy', { onEvent: (e) => events.push(e) });
    expect(run.status).toBe('waiting');
    expect(run.path).toEqual(['plan', 'dispatch']);
    expect(run.waiting).toEqual({
      nodeId: 'dispatch',
      reason: 'refund[2] (root/refund[2]) waits at approve: approve a refund of 599 CNY for SO2',
      specialist: { index: 1, kind: 'refund', runId: `${run.runId}/refund[2]`, path: 'root/refund[2]', nodeId: 'approve' },
    });
    // The other two finished before the run waited.
    expect(events.filter((e) => e.type === 'specialist.completed').map((e) => (e as Record<string, unknown>).kind).sort()).toEqual(['orders', 'policy']);
    expect(events.filter((e) => e.type === 'run.waiting').map((e) => [e.path, e.nodeId])).toEqual([
      ['root/refund[2]', 'approve'],
      ['root', 'dispatch'],
    ]);

    const resumed: WorkflowEvent[] = [];
    const done = await resumeRun(graph, run.runId, { reply: 'approved by Ana' }, { onEvent: (e) => resumed.push(e) });
    expect(done.status).toBe('completed');
    expect(done.path).toEqual(['plan', 'dispatch', 'review']);
    expect(done.outputText).toBe('orders: status of SO1 is shipped | refund: refund SO2: approved by Ana | policy: returns within 30 days');
    const results = done.state.get('specialistResults') as TaskResult[];
    expect(results.map((r) => [r.kind, r.status, r.path])).toEqual([
      ['orders', 'completed', ['look']],
      ['refund', 'completed', ['draft', 'approve', 'finish']],
      ['policy', 'completed', ['answer']],
    ]);
    // The resumed leg continues the run's event sequence; the specialist's events are on its own path.
    expect(resumed[0]).toMatchObject({ type: 'run.resumed', atNodeId: 'dispatch', seq: events.at(-1)!.seq + 1 });
    expect(resumed.filter((e) => e.path === 'root/refund[2]').map((e) => e.type)).toContain('node.completed');
  });
});

/** A specialist that asks a person `times` times (each reply is kept), then answers with the replies. */
function asker(name: string, times = 1) {
  // Built in a loop, so its node ids are plain strings.
  const graph = new StateGraph<null, string>({ name }).addNode('start', (_ctx, r) => String(r.input));
  for (let i = 1; i <= times; i++) graph.addNode(`ask${i}`, humanNode({ reason: (ctx) => `${name} question ${i} about ${String(ctx.get('topic'))}`, replyKey: `reply${i}` }));
  graph.addNode('answer', (ctx) => Array.from({ length: times }, (_, i) => String(ctx.get(`reply${i + 1}`))).join('+'));
  graph.start('start');
  graph.addNode('remember', (ctx, r) => {
    ctx.put('topic', String(r.input));
    return null;
  });
  graph.addEdge('start', 'remember');
  graph.addEdge('remember', 'ask1');
  for (let i = 1; i < times; i++) graph.addEdge(`ask${i}`, `ask${i + 1}`);
  graph.addEdge(`ask${times}`, 'answer');
  return graph;
}

function parent(coordinator: Coordinator, tasks: Array<{ kind: string; input: string; timeoutMs?: number }>, name = 'parent') {
  return new StateGraph({ name })
    .addNode('plan', coordinator.planNode(() => tasks))
    .addNode('dispatch', coordinator.dispatchNode())
    .addNode('review', (ctx) => (ctx.get<TaskResult[]>('specialistResults') ?? []).map((t) => `${t.kind}=${t.status}:${t.outputText}`).join(' | '))
    .start('plan')
    .addEdge('plan', 'dispatch')
    .addEdge('dispatch', 'review');
}

describe('waiting specialists', () => {
  it('waits only once every other specialist has ended (none is stopped mid-work)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = new StateGraph({ name: 'slow' }).addNode('work', async () => (await gate, 'slow done')).start('work');
    const graph = parent(new Coordinator({ specialists: { ask: asker('ask'), slow } }), [{ kind: 'ask', input: 'refund' }, { kind: 'slow', input: 'x' }]);
    const events: WorkflowEvent[] = [];
    const pending = graph.run('x', {
      onEvent: (e) => {
        events.push(e);
        // The specialist waits while its sibling still works: only then is the sibling let go.
        if (e.type === 'specialist.waiting') queueMicrotask(release);
      },
    });
    const run = await pending;
    expect(run.status).toBe('waiting');
    const types = events.filter((e) => e.path === 'root' && e.type.match(/^(specialist|run)\./)).map((e) => e.type);
    expect(types).toEqual(['run.started', 'specialist.waiting', 'specialist.completed', 'run.waiting', 'run.completed']);
    const done = await resumeRun(graph, run.runId, { reply: 'yes' });
    expect(done.outputText).toBe('ask=completed:yes | slow=completed:slow done');
  });

  it('asks for each waiting specialist in turn, in task order, and for one that waits again', async () => {
    const graph = parent(new Coordinator({ specialists: { one: asker('one', 2), two: asker('two') } }), [{ kind: 'one', input: 'A' }, { kind: 'two', input: 'B' }]);
    const reasons: string[] = [];
    let run = await graph.run('x');
    const replies = ['r1', 'r2', 'r3'];
    for (const reply of replies) {
      expect(run.status).toBe('waiting');
      reasons.push(run.waiting!.reason);
      run = await resumeRun(graph, run.runId, { reply });
    }
    expect(reasons).toEqual([
      'one[1] (root/one[1]) waits at ask1: one question 1 about A',
      'one[1] (root/one[1]) waits at ask2: one question 2 about A',
      'two[2] (root/two[2]) waits at ask1: two question 1 about B',
    ]);
    expect(run).toMatchObject({ status: 'completed', outputText: 'one=completed:r1+r2 | two=completed:r3' });
  });

  it('reaches a specialist inside a specialist: nested coordinators wait and resume through each other', async () => {
    const inner = parent(new Coordinator({ specialists: { ask: asker('ask') } }), [{ kind: 'ask', input: 'deep' }], 'inner');
    const outer = parent(new Coordinator({ specialists: { inner } }), [{ kind: 'inner', input: 'x' }], 'outer');
    const run = await outer.run('x');
    expect(run.waiting).toMatchObject({
      nodeId: 'dispatch',
      reason: 'inner[1] (root/inner[1]) waits at dispatch: ask[1] (root/inner[1]/ask[1]) waits at ask1: ask question 1 about deep',
      specialist: { kind: 'inner', path: 'root/inner[1]', nodeId: 'dispatch' },
    });
    await expect(resumeRun(outer, run.runId, { reply: 42 })).rejects.toMatchObject({ code: 'invalid_reply', message: expect.stringContaining('human node "ask1" in root/inner[1]/ask[1]') });
    const done = await resumeRun(outer, run.runId, { reply: 'from the top' });
    expect(done.outputText).toBe('inner=completed:ask=completed:from the top');
  });

  it('does not count time spent waiting for a person toward the task timeout', async () => {
    const graph = parent(new Coordinator({ specialists: { ask: asker('ask') } }), [{ kind: 'ask', input: 'x', timeoutMs: 30 }]);
    const run = await graph.run('x');
    await new Promise((r) => setTimeout(r, 80));
    const done = await resumeRun(graph, run.runId, { reply: 'late but fine' });
    expect(done.outputText).toBe('ask=completed:late but fine');
  });

  it('cancels a waiting specialist when a sibling fails under cancel-siblings, and does not wait', async () => {
    const failing = new StateGraph({ name: 'failing' })
      .addNode('work', async () => {
        await new Promise((r) => setTimeout(r, 5));
        throw new Error('broken');
      })
      .start('work');
    const graph = parent(new Coordinator({ specialists: { ask: asker('ask'), failing }, onFailure: 'cancel-siblings' }), [{ kind: 'ask', input: 'x' }, { kind: 'failing', input: 'y' }]);
    const run = await graph.run('x');
    expect(run).toMatchObject({ status: 'completed', outputText: 'ask=cancelled:null | failing=failed:null' });
  });

  it('a cancelled waiting run is not resumed', async () => {
    const graph = dispatchGraph();
    const run = await graph.run('SO1, SO2');
    await cancelRun(defaultMemoryStore, run.runId);
    await expect(resumeRun(graph, run.runId, { reply: 'late' })).rejects.toMatchObject({ code: 'run_finished' });
  });
});
