import { describe, expect, it } from 'vitest';
import { Coordinator, GraphDefinitionError, StateGraph, type TaskResult } from '../../src/index.js';
import { planDispatchGraph } from '../support/planDispatchGraph.js';

/** Node fires a timer of more than this many milliseconds at once. */
const MAX_TIMER_MS = 2_147_483_647;

function setup(options: { taskTimeoutMs?: number }, task: Record<string, unknown>) {
  const ran: string[] = [];
  const specialist = new StateGraph({ name: 'a' })
    .addNode('work', (ctx, request) => (ran.push(ctx.runId), `answered ${String(request.input)}`))
    .start('work');
  const coordinator = new Coordinator({ specialists: { a: specialist }, ...options });
  const graph = planDispatchGraph(coordinator, coordinator.planNode(() => [{ kind: 'a', input: 'q', ...task }]));
  return { graph, ran };
}

describe('coordinator time limits beyond what a timer can hold', () => {
  it('refuses a taskTimeoutMs over 2147483647 ms when the coordinator is built (its timer would fire at once)', () => {
    for (const taskTimeoutMs of [MAX_TIMER_MS + 1, 3_000_000_000, 30 * 24 * 3600 * 1000]) {
      expect(() => setup({ taskTimeoutMs }, {})).toThrow(GraphDefinitionError);
      expect(() => setup({ taskTimeoutMs }, {})).toThrow(`taskTimeoutMs must be a positive integer of milliseconds, at most ${MAX_TIMER_MS}; received ${taskTimeoutMs}`);
    }
    expect(() => setup({ taskTimeoutMs: MAX_TIMER_MS }, {})).not.toThrow();
  });

  it("refuses a planned task whose own timeoutMs is over 2147483647 ms as invalid_tasks, before any specialist runs", async () => {
    const { graph, ran } = setup({}, { timeoutMs: MAX_TIMER_MS + 1 });
    const run = await graph.run('x');
    expect(run.status).toBe('failed');
    expect(run.path).toEqual(['plan']);
    expect(run.error?.code).toBe('invalid_tasks');
    expect(run.error?.message).toContain('timeoutMs');
    expect(ran).toEqual([]);
  });

  it('runs a task under the longest limit a timer holds to its end', async () => {
    const { graph, ran } = setup({}, { timeoutMs: MAX_TIMER_MS });
    const run = await graph.run('x');
    expect(run.status).toBe('completed');
    expect((run.state.get('specialistResults') as TaskResult[]).map((r) => [r.status, r.outputText])).toEqual([['completed', 'answered q']]);
    expect(ran).toHaveLength(1);
  });
});
