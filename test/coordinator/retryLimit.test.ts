import { describe, expect, it } from 'vitest';
import { Coordinator, GraphDefinitionError, StateGraph, type TaskResult } from '../../src/index.js';
import { planDispatchGraph } from '../support/planDispatchGraph.js';

/** A coordinator whose one specialist always fails, counting its attempts. */
function setup(options: { retries?: number }, task: Record<string, unknown>) {
  let attempts = 0;
  const specialist = new StateGraph({ name: 'a' })
    .addNode('work', async () => {
      attempts += 1;
      // A turn of the event loop per attempt: timers (the run's maxDuration) still fire.
      await new Promise((resolve) => setImmediate(resolve));
      throw new Error('always fails');
    })
    .start('work');
  const coordinator = new Coordinator({ specialists: { a: specialist }, onFailure: 'continue', ...options });
  const graph = planDispatchGraph(coordinator, coordinator.planNode(() => [{ kind: 'a', input: 'q', ...task }]));
  return { graph, attempts: () => attempts };
}

describe('coordinator retries', () => {
  it('refuses more than 100 retries when the coordinator is built (a failing specialist would be started without end)', () => {
    for (const retries of [101, 1e9]) {
      expect(() => setup({ retries }, {})).toThrow(GraphDefinitionError);
      expect(() => setup({ retries }, {})).toThrow(`retries must be a whole number from 0 to 100`);
    }
    expect(() => setup({ retries: 100 }, {})).not.toThrow();
  });

  it('refuses a planned task (a model\'s plan, say) asking for more than 100 retries as invalid_tasks, before any specialist runs', async () => {
    const { graph, attempts } = setup({}, { retries: 1e9 });
    // The time limit only keeps a run that would not end (1e9 attempts) from hanging the test.
    const run = await graph.run('x', { budget: { maxDuration: 3_000 } });
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('invalid_tasks');
    expect(run.error?.message).toContain('retries');
    expect(attempts()).toBe(0);
  });

  it('makes exactly 1 + retries attempts at the limit', async () => {
    const { graph, attempts } = setup({ retries: 100 }, {});
    const run = await graph.run('x');
    expect(run.status).toBe('completed');
    expect((run.state.get('specialistResults') as TaskResult[]).map((r) => [r.status, r.attempts])).toEqual([['failed', 101]]);
    expect(attempts()).toBe(101);
  });
});
