import { describe, expect, it } from 'vitest';
import { AgentContext, DEFAULT_LOOP_FUSE, WORKFLOW_KEYS, Workflow, step } from 'switchboard';
import { runBoth } from './support.js';

const inc = step('inc', (_c, n: number) => n + 1);

describe('times(n) and the loop fuse', () => {
  it('runs the body exactly n times when n is over the default fuse (maxIterations not raised)', async () => {
    const n = DEFAULT_LOOP_FUSE * 2 + 50;
    const run = await runBoth(Workflow.loop<number>('many').step(inc).times(n), 0);
    expect(run.status).toBe('completed');
    expect(run.output).toBe(n);
    expect(run.path).toHaveLength(n);
    expect(run.context.get(AgentContext.ITERATION_COUNT)).toBe(n);
    // Its passes are not drawn from the fuse: nothing was counted against it.
    expect(run.context.get(WORKFLOW_KEYS.loopPasses)).toBeUndefined();
  });

  it('is not stopped by a small maxIterations, which still stops a repeatUntil loop in the same workflow', async () => {
    const bounded = Workflow.define<number>('bounded')
      .step(Workflow.loop<number>('ten').step(inc).times(10).build())
      .repeatUntil((_c, n) => n >= 1_000)
      .step(inc)
      .end();
    const run = await runBoth(bounded, 0, {}, { maxIterations: 3 });
    expect(run.status).toBe('max-steps');
    // The ten passes of times(10), then three passes of the repeatUntil loop before its fuse.
    expect(run.output).toBe(13);
  });

  it('counts its own passes when it holds another loop (an inner loop does not end it early or late)', async () => {
    const inner = Workflow.loop<number>('inner').step(inc).times(2).build();
    const outer = Workflow.loop<number>('outer').step(step('tens', (_c, n: number) => n + 10)).step(inner).times(3);
    const run = await runBoth(outer, 0);
    expect(run.status).toBe('completed');
    expect(run.output).toBe(36);
    expect(run.path).toEqual(['tens', 'inner', 'tens', 'inner', 'tens', 'inner']);
  });

  it('runs nothing for times(0), and a repeatUntil loop keeps its fuse (default 100)', async () => {
    const none = await runBoth(Workflow.loop<number>('none').step(inc).times(0), 5);
    expect(none).toMatchObject({ status: 'completed', output: 5, path: [] });
    const forever = Workflow.define<number>('forever').repeatUntil(() => false).step(inc).end();
    const spent = await runBoth(forever, 0);
    expect(spent.status).toBe('max-steps');
    expect(spent.output).toBe(DEFAULT_LOOP_FUSE);
  });
});
