import { describe, expect, it } from 'vitest';
import { AgentContext, Workflow, step, type AgentContext as Ctx } from 'switchboard';

/** Lets pending promise jobs and I/O callbacks run (no time is measured). */
const settle = async () => {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

/**
 * A step that awaits something long (a promise only the test settles, standing for a slow fetch)
 * and honours `ctx.signal` as a fetch does: it gives up with the signal's reason when it aborts.
 */
function longStep(name = 'fetch') {
  const seen = { started: false, sawAbort: false, aborted: null as unknown, ended: false };
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const begun = new Promise<void>((resolve) => (started = resolve));
  const made = step(name, async (ctx: Ctx, input: string) => {
    seen.started = true;
    started();
    try {
      await new Promise<void>((resolve, reject) => {
        ctx.signal.addEventListener('abort', () => ((seen.sawAbort = true), reject(ctx.signal.reason)), { once: true });
        void released.then(resolve);
      });
      return `${input} fetched`;
    } catch (error) {
      seen.aborted = error;
      throw error;
    } finally {
      seen.ended = true;
    }
  });
  return { step: made, seen, release, begun };
}

describe('a step sees its run abort through ctx.signal', () => {
  it('a long step at the top level is aborted by cancel; the run returns cancelled and the step has ended', async () => {
    const long = longStep();
    const controller = new AbortController();
    const wf = Workflow.define<string>('page').step(long.step).then(step('after', (_c, s: string) => s));
    const running = wf.run('page', { signal: controller.signal });
    await long.begun;
    controller.abort();
    const run = await running;
    await settle();
    expect(run.status).toBe('cancelled');
    // The step stopped with the run (the thing it awaited was never released).
    expect(long.seen.sawAbort).toBe(true);
    expect(long.seen.aborted).toBeInstanceOf(Error);
    expect(long.seen.ended).toBe(true);
    long.release();
  });

  it('a long step is aborted when the run spends its maxDuration; the run ends budget-exceeded', async () => {
    const long = longStep();
    const wf = Workflow.define<string>('page').step(step('prepare', (_c, s: string) => s)).then(long.step);
    const run = await wf.run('page', { budget: { maxDuration: 50 } });
    await settle();
    expect(run.status).toBe('budget-exceeded');
    expect(run.budgetExceeded?.budget).toBe('maxDuration');
    expect(run.output).toBe('page');
    expect(long.seen.sawAbort).toBe(true);
    expect(long.seen.aborted).toBeInstanceOf(Error);
    expect(long.seen.ended).toBe(true);
    long.release();
  });

  it('a step that loops checking ctx.signal stops when its run spends its maxDuration', async () => {
    let passes = 0;
    let stopped = false;
    const spin = step('spin', async (ctx: Ctx, n: number) => {
      while (!ctx.signal.aborted) {
        passes += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
      stopped = true;
      return n;
    });
    const run = await Workflow.define<number>('spin').step(spin).run(1, { budget: { maxDuration: 50 } });
    await settle();
    expect(run.status).toBe('budget-exceeded');
    expect(stopped).toBe(true);
    const after = passes;
    await settle();
    expect(passes).toBe(after);
  });

  it('each parallel branch and each fan-out item sees the cancel', async () => {
    const a = longStep('a');
    const b = longStep('b');
    const controller = new AbortController();
    const wf = Workflow.define<string>('both').gather(a.step, b.step);
    const running = wf.run('x', { signal: controller.signal });
    await Promise.all([a.begun, b.begun]);
    controller.abort();
    expect((await running).status).toBe('cancelled');
    await settle();
    expect([a.seen.sawAbort, b.seen.sawAbort, a.seen.ended, b.seen.ended]).toEqual([true, true, true, true]);

    const items = [longStep('i0'), longStep('i1')];
    const again = new AbortController();
    const fan = Workflow.define<string[]>('items').parallel((_c, list: string[]) => list, (_item: string, index: number) => items[index]!.step);
    const fanning = fan.run(['p', 'q'], { signal: again.signal });
    await Promise.all(items.map((i) => i.begun));
    again.abort();
    expect((await fanning).status).toBe('cancelled');
    await settle();
    expect(items.map((i) => [i.seen.sawAbort, i.seen.ended])).toEqual([[true, true], [true, true]]);
    for (const s of [a, b, ...items]) s.release();
  });

  it('a sub-workflow a step runs with execute() is cancelled with that step', async () => {
    const long = longStep('inner');
    const child = Workflow.define<string>('child').step(long.step).build();
    const controller = new AbortController();
    const wf = Workflow.define<string>('parent').step(step('calls-child', (ctx: Ctx, s: string) => child.execute(ctx, s)));
    const running = wf.run('x', { signal: controller.signal });
    await long.begun;
    controller.abort();
    expect((await running).status).toBe('cancelled');
    await settle();
    expect([long.seen.sawAbort, long.seen.ended]).toEqual([true, true]);
    long.release();
  });

  it("a gate's evaluate sees the cancel too", async () => {
    let sawAbort = false;
    let started!: () => void;
    const begun = new Promise<void>((resolve) => (started = resolve));
    const slowJudge = {
      name: 'slow-judge',
      evaluate: (ctx: Ctx) =>
        new Promise<'PASS'>((_resolve, reject) => {
          started();
          ctx.signal.addEventListener('abort', () => ((sawAbort = true), reject(ctx.signal.reason)), { once: true });
        }),
    };
    const controller = new AbortController();
    const wf = Workflow.define<string>('judged').step(step('draft', (_c, s: string) => s)).gate(slowJudge).onPass(step('send', (_c, s: string) => s)).end();
    const running = wf.run('x', { signal: controller.signal });
    await begun;
    controller.abort();
    expect((await running).status).toBe('cancelled');
    await settle();
    expect(sawAbort).toBe(true);
  });

  it('keeps the signal in a context made from the step context, and outside a run gives one that never aborts', async () => {
    let same = false;
    const wf = Workflow.define<number>('derived').step(
      step('derive', (ctx: Ctx, n: number) => {
        same = ctx.mutate().with('k', 1).build().signal === ctx.signal && ctx.mergeFrom(AgentContext.from({ j: 2 })).signal === ctx.signal;
        return n;
      }),
    );
    expect((await wf.run(1)).status).toBe('completed');
    expect(same).toBe(true);
    const outside = AgentContext.empty();
    expect(outside.signal.aborted).toBe(false);
    expect(outside.signal).toBe(outside.signal);
    expect(Object.keys(outside.toJSON())).toEqual([]);
  });
});
