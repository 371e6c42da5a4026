import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentContext, Steps, Workflow, WorkflowAbort, contextKey, noop, step, WORKFLOW_KEYS } from 'switchboard';
import { runBoth } from './support.js';

const LENGTH = contextKey('length', z.number());
const trim = step('trim', (_c, s: string) => s.trim());
const words = step('words', (_c, s: string) => s.split(/\s+/).length, {
  updateContext: (ctx, n) => ctx.mutate().with(LENGTH, n).build(),
});

describe('Workflow combinators', () => {
  it('runs step and then in order, passing each output on and the metadata through the context', async () => {
    const wf = Workflow.define<string>('count').step(trim).then(words);
    const run = await runBoth(wf, '  one two three ');
    expect(run.status).toBe('completed');
    expect(run.output).toBe(3);
    expect(run.path).toEqual(['trim', 'words']);
    expect(run.context.get(LENGTH)).toBe(3);
    expect(run.context.get(AgentContext.WORKFLOW_NAME)).toBe('count');
    expect(run.context.get(AgentContext.WORKFLOW_RUN_ID)).toBe(run.runId);
  });

  it('takes the then arm when the predicate holds and the otherwise arm when it does not', async () => {
    const wf = Workflow.define<number>('sign')
      .branch((_c, n) => n >= 0)
      .then(step('positive', (_c, n: number) => `+${n}`))
      .otherwise(step('negative', (_c, n: number) => `${n}`))
      .then(step('shout', (_c, s: string) => s + '!'));
    const up = await runBoth(wf, 4);
    expect(up.output).toBe('+4!');
    expect(up.path).toEqual(['positive', 'shout']);
    const down = await runBoth(wf, -2);
    expect(down.output).toBe('-2!');
    expect(down.path).toEqual(['negative', 'shout']);
  });

  it('gathers the outputs of steps given the same input, in step order', async () => {
    const slow = step('slow', async (_c, s: string) => {
      await new Promise((r) => setTimeout(r, 20));
      return s.toUpperCase();
    });
    const fast = step('fast', (_c, s: string) => s.length);
    const wf = Workflow.define<string>('both').gather(slow, fast);
    const run = await runBoth(wf, 'abc');
    expect(run.output).toEqual(['ABC', 3]);
    expect([...run.path].sort()).toEqual(['fast', 'slow']);
  });

  it('parallel passes its input through and merges the branches context writes', async () => {
    const a = step('a', (c, s: string) => s, { updateContext: (ctx) => ctx.mutate().with('fromA', 1).with('shared', 'a').build() });
    const b = step('b', async (_c, s: string) => {
      await new Promise((r) => setTimeout(r, 30));
      return s;
    }, { updateContext: (ctx) => ctx.mutate().with('fromB', 2).with('shared', 'b').build() });
    const wf = Workflow.define<string>('fan').parallel(a, b).then(step('after', (c, s: string) => `${s}:${String(c.get('fromA'))}${String(c.get('fromB'))}`));
    const run = await runBoth(wf, 'x');
    expect(run.output).toBe('x:12');
    // b finishes last, so its write wins the conflict.
    expect(run.context.get('shared')).toBe('b');
  });

  it('parallel(itemsOf, stepFor) runs a step per item and outputs their results in item order', async () => {
    const wf = Workflow.define<string>('per-word').parallel(
      (_c, s: string) => s.split(' '),
      (word: string, i: number) => step(`w${i}`, (_c, w: string) => `${i}:${w.length}`, { updateContext: (ctx) => ctx.mutate().with(`seen:${word}`, true).build() }),
    );
    const run = await runBoth(wf, 'aa b ccc');
    expect(run.output).toEqual(['0:2', '1:1', '2:3']);
    expect(run.context.get('seen:ccc')).toBe(true);
    expect(run.context.get('seen:aa')).toBe(true);
    // The items are not nodes of the graph: `path` does not list them (the trace does, in lanes root/for-each[n]).
    expect(run.path).toEqual([]);
  });

  it('repeatUntil checks the predicate before each pass and writes ITERATION_COUNT', async () => {
    const wf = Workflow.define<number>('count-up')
      .repeatUntil((_c, n) => n >= 3)
      .step(step('inc', (_c, n: number) => n + 1))
      .end();
    const run = await runBoth(wf, 0);
    expect(run.output).toBe(3);
    expect(run.path).toEqual(['inc', 'inc', 'inc']);
    expect(run.context.get(AgentContext.ITERATION_COUNT)).toBe(3);
    const none = await runBoth(wf, 5);
    expect(none.output).toBe(5);
    expect(none.path).toEqual([]);
  });

  it('repeatUntilOutput runs the body at least once and stops when the output satisfies the predicate', async () => {
    const wf = Workflow.define<number>('double')
      .repeatUntilOutput((_c, n) => n > 10)
      .step(step('double', (_c, n: number) => n * 2))
      .end();
    const run = await runBoth(wf, 3);
    expect(run.output).toBe(12);
    expect(run.path).toEqual(['double', 'double']);
    const once = await runBoth(wf, 50);
    expect(once.output).toBe(100);
    expect(once.path).toEqual(['double']);
  });

  it('ends max-steps when the loop fuse is spent (default 100, maxIterations in the run options)', async () => {
    const forever = Workflow.define<number>('forever').repeatUntil(() => false).step(step('spin', (_c, n: number) => n + 1)).end();
    const run = await runBoth(forever, 0);
    expect(run.status).toBe('max-steps');
    expect(run.output).toBe(100);
    const short = await runBoth(forever, 0, {}, { maxIterations: 5 });
    expect(short.status).toBe('max-steps');
    expect(short.path).toHaveLength(5);
    expect(short.context.get(WORKFLOW_KEYS.loopPasses)).toBe(5);
  });

  it('WorkflowAbort ends the run aborted with its result as the output', async () => {
    const wf = Workflow.define<string>('abort')
      .step(step('check', (_c, s: string) => {
        if (s === 'down') throw new WorkflowAbort('service unavailable, try later');
        return s;
      }))
      .then(step('never', () => 'not reached'));
    const run = await runBoth(wf, 'down');
    expect(run.status).toBe('aborted');
    expect(run.output).toBe('service unavailable, try later');
    expect(run.path).toEqual(['check']);
    const fine = await runBoth(wf, 'up');
    expect(fine.output).toBe('not reached');
  });

  it('Steps.terminate ends the run early with its status and message', async () => {
    const done = await runBoth(Workflow.define<string>('t1').step(noop('first')).then(Steps.terminate('completed', 'enough')).then(step('after', () => 'no')), 'x');
    expect(done.status).toBe('completed');
    expect(done.output).toBe('enough');
    expect(done.path).toEqual(['first', 'terminate-completed']);
    const failed = await runBoth(Workflow.define<string>('t2').step(Steps.terminate('failed', 'bad input')), 'x');
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toContain('bad input');
  });

  it('Steps.retrying retries a failing step and Steps.outputOf reads an earlier output', async () => {
    let calls = 0;
    const flaky = step('flaky', (_c, s: string) => {
      calls += 1;
      if (calls < 3) throw new Error('transient');
      return s.length;
    });
    const wf = Workflow.define<string>('retry').step(step('name', (_c, s: string) => s)).then(Steps.retrying(2, flaky)).then(Steps.outputOf<string>('name'));
    const run = await wf.run('hello');
    expect(run.status).toBe('completed');
    expect(calls).toBe(3);
    expect(run.output).toBe('hello');
    expect(run.path).toEqual(['name', 'flaky', 'output-of-name']);
    // Under plain XState too: two failures, then the third call succeeds.
    calls = 0;
    expect((await runBoth(wf, 'hello')).output).toBe('hello');
    calls = -10;
    // One retry is not enough: run() and the machine each fail after two calls.
    const out = await runBoth(Workflow.define<string>('retry2').step(Steps.retrying(1, flaky)), 'x');
    expect(out.status).toBe('failed');
    expect(out.error?.message).toContain('transient');
    expect(calls).toBe(-6);
  });

  it('onError recovers by error class and by code with the failed step input', async () => {
    class RateLimit extends Error {}
    const wf = Workflow.define<string>('recover')
      .step(step('call', (_c, s: string): string => {
        if (s === 'rate') throw new RateLimit('slow down');
        if (s === 'coded') throw Object.assign(new Error('nope'), { code: 'E_NOPE' });
        throw new Error('other');
      }))
      .then(step('after', (_c, s: string) => `after:${s}`))
      .onError(RateLimit, step('fallback', (c, s: string) => `fallback(${s}) for ${String((c.get(WORKFLOW_KEYS.error) as { step: string }).step)}`))
      .onError('E_NOPE', step('coded-fallback', (_c, s: string) => `coded(${s})`));
    const byClass = await runBoth(wf, 'rate');
    expect(byClass.output).toBe('after:fallback(rate) for call');
    expect(byClass.path).toEqual(['call', 'fallback', 'after']);
    const byCode = await runBoth(wf, 'coded');
    expect(byCode.output).toBe('after:coded(coded)');
    const unhandled = await runBoth(wf, 'boom');
    expect(unhandled.status).toBe('failed');
    expect(unhandled.error?.message).toContain('other');
  });

  it('checks typed steps at run time: an input the schema refuses fails the step with its name', async () => {
    const wf = Workflow.define<unknown>('typed').step(step('num', (_c, n: number) => n * 2, { input: z.number() }));
    const run = await runBoth(wf, 'nine' as unknown);
    expect(run.status).toBe('failed');
    expect(run.error?.message).toContain('step "num"');
  });

  it('fails the run with a StateValidationError naming the key when updateContext writes a value its key refuses', async () => {
    const SCORE = contextKey('score', z.number().max(1));
    const wf = Workflow.define<number>('bad-write').step(step('rate', (_c, n: number) => n, { updateContext: (ctx, n) => ctx.mutate().with(SCORE, n).build() }));
    const run = await runBoth(wf, 5);
    expect(run.status).toBe('failed');
    expect(run.error?.name).toBe('StateValidationError');
    expect(run.error?.message).toContain('"score"');
    expect(run.error?.message).toContain('"rate"');
  });

  it('starts with the given context', async () => {
    const wf = Workflow.define<string>('ctx').step(step('read', (c, s: string) => `${s}:${String(c.require('user'))}`));
    const run = await runBoth(wf, 'hi', { user: 'ada' });
    expect(run.output).toBe('hi:ada');
  });
});
