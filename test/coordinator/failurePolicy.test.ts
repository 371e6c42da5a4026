import { describe, expect, it } from 'vitest';
import { Coordinator, END, MemoryRunStore, StateGraph, type CoordinatorOptions, type TaskResult, type WorkflowEvent } from '../../src/index.js';

/** A specialist that does what its input says: `ok`, `fail`, `hang` (until aborted), or `flaky:N` (fails N times, then answers). */
function actor(record: { aborted: string[]; attempts: Map<string, number> }) {
  return new StateGraph({ name: 'actor' })
    .addNode('work', async (ctx, request) => {
      const input = String(request.input);
      const n = (record.attempts.get(ctx.runId) ?? 0) + 1;
      record.attempts.set(ctx.runId, n);
      if (input === 'fail') throw new Error('the order service said no');
      if (input.startsWith('flaky:') && n <= Number(input.slice(6))) throw new Error(`flake ${n}`);
      if (input.startsWith('slow-flaky:') && n <= Number(input.slice(11))) {
        return new Promise((resolve) => ctx.signal.addEventListener('abort', () => (record.aborted.push(ctx.runId), resolve(null))));
      }
      if (input === 'hang') return new Promise((resolve) => ctx.signal.addEventListener('abort', () => (record.aborted.push(ctx.runId), resolve(null))));
      if (input === 'loop' || input === 'again') return 'again';
      return `answered ${input}`;
    })
    .start('work')
    .addTransition('work', 'work', (_ctx, r) => r.input === 'again');
}

function setup(options: Omit<CoordinatorOptions, 'specialists'>, tasks: Array<Record<string, unknown>>) {
  const record = { aborted: [] as string[], attempts: new Map<string, number>() };
  const coordinator = new Coordinator({ specialists: { a: actor(record) }, ...options });
  const graph = new StateGraph({ name: 'policy' })
    .addNode('plan', coordinator.planNode(() => tasks.map((t) => ({ kind: 'a', ...t }))))
    .addNode('dispatch', coordinator.dispatchNode())
    .addNode('after', () => 'went on')
    .start('plan')
    .addEdge('plan', 'dispatch')
    .addEdge('dispatch', 'after')
    .addEdge('after', END);
  const events: WorkflowEvent[] = [];
  const run = () => graph.run('x', { onEvent: (e) => events.push(e) });
  return { run, record, events };
}

const results = (run: { state: Map<string, unknown> }) => run.state.get('specialistResults') as TaskResult[];
const brief = (r: TaskResult) => [r.status, r.reason, r.attempts];

describe('coordinator failure policy', () => {
  it("continue (the default): the others finish and the run goes on; the results and the node's summary say what failed", async () => {
    const { run, events } = setup({}, [{ input: 'ok' }, { input: 'fail' }, { input: 'ok2' }]);
    const done = await run();
    expect(done).toMatchObject({ status: 'completed', path: ['plan', 'dispatch', 'after'] });
    expect(results(done).map(brief)).toEqual([
      ['completed', null, 1],
      ['failed', 'node "work" failed: the order service said no', 1],
      ['completed', null, 1],
    ]);
    expect(results(done)[1]!.error).toMatchObject({ code: 'node_failed' });
    const summary = events.find((e) => e.type === 'node.completed' && e.nodeId === 'dispatch') as Extract<WorkflowEvent, { type: 'node.completed' }>;
    expect(summary.result?.rawResponse).toEqual({ tasks: 3, completed: 2, failed: 1, cancelled: 0, maxSteps: 0, problems: ['a[2]: node "work" failed: the order service said no'] });
  });

  it('fail: the first failure cancels the others and fails the run, naming the task and why', async () => {
    const { run, record } = setup({ onFailure: 'fail' }, [{ input: 'hang' }, { input: 'fail' }, { input: 'hang' }]);
    const done = await run();
    expect(done.status).toBe('failed');
    expect(done.path).toEqual(['plan', 'dispatch']);
    expect(done.error).toMatchObject({ code: 'specialist_failed', nodeId: 'dispatch' });
    expect(done.error?.message).toBe(`coordinator "dispatch": a[2] failed: node "work" failed: the order service said no; 2 other tasks cancelled (onFailure: 'fail')`);
    expect(results(done).map(brief)).toEqual([
      ['cancelled', "cancelled because a[2] failed (onFailure: 'fail')", 1],
      ['failed', 'node "work" failed: the order service said no', 1],
      ['cancelled', "cancelled because a[2] failed (onFailure: 'fail')", 1],
    ]);
    // The cancelled specialists' nodes saw their signal abort.
    await new Promise((r) => setTimeout(r, 0));
    expect(record.aborted.sort()).toEqual([`${done.runId}/a[1]`, `${done.runId}/a[3]`]);
  });

  it('cancel-siblings: the others are cancelled and the run goes on with the results so far', async () => {
    const { run } = setup({ onFailure: 'cancel-siblings' }, [{ input: 'ok' }, { input: 'hang' }, { input: 'fail' }]);
    const done = await run();
    expect(done).toMatchObject({ status: 'completed', path: ['plan', 'dispatch', 'after'] });
    expect(results(done).map((r) => r.status)).toEqual(['completed', 'cancelled', 'failed']);
  });

  it('minCompleted: fails as soon as it cannot be met, cancelling the rest; passes when it is', async () => {
    const failing = setup({ minCompleted: 2 }, [{ input: 'fail' }, { input: 'hang' }, { input: 'fail' }]);
    const failed = await failing.run();
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'too_few_completed' });
    expect(failed.error?.message).toBe(
      'coordinator "dispatch" needs at least 2 completed tasks of 3; 0 completed (a[1]: node "work" failed: the order service said no; a[3]: node "work" failed: the order service said no); 1 other task cancelled',
    );
    expect(results(failed).map((r) => r.status)).toEqual(['failed', 'cancelled', 'failed']);

    const passing = await setup({ minCompleted: 2 }, [{ input: 'ok' }, { input: 'fail' }, { input: 'ok' }]).run();
    expect(passing.status).toBe('completed');

    const tooFew = setup({ minCompleted: 4 }, [{ input: 'ok' }, { input: 'ok' }, { input: 'ok' }]);
    const impossible = await tooFew.run();
    expect(impossible.error?.message).toBe('coordinator "dispatch" needs at least 4 completed tasks but the plan has 3 tasks');
    expect(tooFew.record.attempts.size).toBe(0);
    const empty = await setup({ minCompleted: 1 }, []).run();
    expect(empty.error).toMatchObject({ code: 'too_few_completed', message: 'coordinator "dispatch" needs at least 1 completed tasks but the plan has none' });
  });

  it('times out an attempt (per task, or the coordinator default), aborting its nodes', async () => {
    const { run, record } = setup({ taskTimeoutMs: 60_000 }, [{ input: 'ok' }, { input: 'hang', timeoutMs: 20 }]);
    const done = await run();
    expect(done.status).toBe('completed');
    expect(results(done)[1]).toMatchObject({ status: 'failed', reason: 'timed out after 20 ms (attempt 1)', error: { code: 'task_timeout', message: 'a[2] timed out after 20 ms (attempt 1)' } });
    expect(record.aborted).toEqual([`${done.runId}/a[2]`]);
  });

  it('retries failed and timed-out attempts while it may, each in a fresh specialist run', async () => {
    const { run, events, record } = setup({ retries: 2 }, [{ input: 'flaky:2' }, { input: 'flaky:1', retries: 0 }, { input: 'slow-flaky:1', timeoutMs: 20 }]);
    const done = await run();
    expect(results(done).map(brief)).toEqual([
      ['completed', null, 3],
      ['failed', 'node "work" failed: flake 1', 1],
      ['completed', null, 2],
    ]);
    expect(results(done)[0]!.outputText).toBe('answered flaky:2');
    expect(events.filter((e) => e.type === 'specialist.retrying').map((e) => [(e as Record<string, unknown>).index, (e as Record<string, unknown>).attempt, (e as Record<string, unknown>).reason])).toEqual([
      [0, 2, 'node "work" failed: flake 1'],
      [0, 3, 'node "work" failed: flake 2'],
      [2, 2, 'timed out after 20 ms (attempt 1)'],
    ]);
    expect(record.attempts.get(`${done.runId}/a[1]`)).toBe(3);
  });

  it('counts a specialist stopped by its fuse as a failure', async () => {
    const done = await setup({ onFailure: 'fail' }, [{ input: 'loop' }]).run();
    expect(done.status).toBe('failed');
    expect(done.error?.message).toMatch(/a\[1\] failed: stopped by its maxSteps fuse after \d+ steps/);
  });

  it('refuses a bad policy when the coordinator is built, and bad task limits when the plan is checked', async () => {
    const specialists = { a: actor({ aborted: [], attempts: new Map() }) };
    expect(() => new Coordinator({ specialists, onFailure: 'retry' as never })).toThrow(/onFailure must be one of 'continue', 'fail', 'cancel-siblings'; received "retry"/);
    expect(() => new Coordinator({ specialists, minCompleted: -1 })).toThrow(/minCompleted must be a non-negative integer/);
    expect(() => new Coordinator({ specialists, taskTimeoutMs: 0 })).toThrow(/taskTimeoutMs must be a positive integer/);
    expect(() => new Coordinator({ specialists, retries: 1.5 })).toThrow(/retries must be a whole number from 0 to 100/);
    const bad = await setup({}, [{ input: 'ok', timeoutMs: -5 }]).run();
    expect(bad.error).toMatchObject({ code: 'invalid_tasks' });
    expect(bad.error?.message).toMatch(/timeoutMs/);
  });
});

describe('a retried task in a stored run', () => {
  it('replays the side effects its failed attempt journaled instead of repeating them', async () => {
    const charges: string[] = [];
    let attempts = 0;
    const payer = new StateGraph({ name: 'payer' })
      .addNode('pay', async (ctx) => {
        attempts += 1;
        const receipt = await ctx.once('charge', (key) => (charges.push(key), `R-${charges.length}`));
        if (attempts === 1) throw new Error('the confirmation step failed');
        return `paid with ${receipt}`;
      })
      .start('pay');
    const coordinator = new Coordinator({ specialists: { payer }, retries: 1 });
    const graph = new StateGraph({ name: 'retry-journal' })
      .addNode('plan', coordinator.planNode(() => [{ kind: 'payer', input: 'SO1' }]))
      .addNode('dispatch', coordinator.dispatchNode())
      .start('plan')
      .addEdge('plan', 'dispatch');
    const store = new MemoryRunStore();
    const run = await graph.run('x', { store });
    expect(results(run).map(brief)).toEqual([['completed', null, 2]]);
    expect(results(run)[0]!.outputText).toBe('paid with R-1');
    expect(charges).toHaveLength(1);
  });
});
