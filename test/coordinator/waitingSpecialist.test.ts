import { describe, expect, it } from 'vitest';
import { resumeRun, type TaskResult, type WorkflowEvent } from '../../src/index.js';
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
