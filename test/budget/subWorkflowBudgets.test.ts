import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, BudgetError, Workflow, agentStep, step, tool, type Step } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { memoryTarget, sqliteTarget, type StoreTarget, storesClosedAfterEach } from '../persistence/storeTargets.js';

/** Steps that count their executions by name. */
function counted(ran: string[]) {
  return (name: string): Step<number, number> => step(name, (_c, n: number) => (ran.push(name), n + 1));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const targets: Array<[string, (() => StoreTarget) | null]> = [
  ['in memory', null],
  ['stored in SQLite', sqliteTarget],
  ['stored in a MemoryRunStore', memoryTarget],
];
const storeOf = storesClosedAfterEach();

describe.each(targets)('maxIterations counts every executed leaf step, sub-workflows included, %s', (_where, make) => {
  it('stops inside a sub-workflow once the leaf steps reach the limit: later steps, inside and after, never run', async () => {
    const store = storeOf(make);
    const ran: string[] = [];
    const s = counted(ran);
    const inner = Workflow.define<number>('inner').step(s('i1')).then(s('i2')).then(s('i3')).build();
    const flow = Workflow.define<number>('outer').step(s('a')).then(inner).then(s('z'));
    const result = await flow.run(0, { budget: { maxIterations: 3 }, ...(store ? { store } : {}) });
    expect(result.status).toBe('budget-exceeded');
    expect(result.budgetExceeded).toEqual({ budget: 'maxIterations', limit: 3, spent: 3 });
    // a, i1, i2 are the three iterations; the sub-workflow step itself is not one.
    expect(ran).toEqual(['a', 'i1', 'i2']);
    expect(result.error).toBeInstanceOf(BudgetError);
  });

  it('reports the leaf steps as the iterations spent: two levels deep, neither the steps that run sub-workflows nor their finish steps count', async () => {
    const store = storeOf(make);
    const ran: string[] = [];
    const s = counted(ran);
    const inner = Workflow.define<number>('inner').step(s('i1')).then(s('i2')).build();
    const mid = Workflow.define<number>('mid').step(s('m1')).then(inner).build();
    const flow = Workflow.define<number>('outer').step(s('a')).then(mid).then(s('z'));
    const result = await flow.run(0, { budget: { maxIterations: 100 }, ...(store ? { store } : {}) });
    expect(result.status).toBe('completed');
    expect(result.output).toBe(5);
    expect(ran).toEqual(['a', 'm1', 'i1', 'i2', 'z']);
    // The five leaf steps and the run's own finish step (a sub-workflow counts as if its steps were inline).
    expect(result.spent?.iterations).toBe(6);
    // Exactly at the limit: the fifth leaf step spends it, and nothing is left to run.
    const tight: string[] = [];
    const t = counted(tight);
    const again = Workflow.define<number>('outer2')
      .step(t('a'))
      .then(Workflow.define<number>('mid2').step(t('m1')).then(Workflow.define<number>('inner2').step(t('i1')).then(t('i2')).build()).build())
      .then(t('z'))
      .then(t('after'));
    const stopped = await again.run(0, { budget: { maxIterations: 4 }, ...(store ? { store } : {}) });
    expect(stopped.status).toBe('budget-exceeded');
    expect(tight).toEqual(['a', 'm1', 'i1', 'i2']);
    expect(stopped.budgetExceeded).toEqual({ budget: 'maxIterations', limit: 4, spent: 4 });
  });
});

describe('maxDuration reaches a sub-workflow in flight', () => {
  it('cancels the sub-workflow with its parent: its later steps never run after the run has ended', async () => {
    const ran: string[] = [];
    const inner = Workflow.define<string>('inner')
      .step(step('slow', async (_c, s: string) => (await sleep(500), ran.push('slow'), s)))
      .then(step('after', (_c, s: string) => (ran.push('after'), s)))
      .build();
    const flow = Workflow.define<string>('outer').step(step('prep', (_c, s: string) => `${s}!`)).then(inner);
    const result = await flow.run('hi', { budget: { maxDuration: 150 } });
    expect(result.status).toBe('budget-exceeded');
    expect(result.budgetExceeded?.budget).toBe('maxDuration');
    expect(result.output).toBe('hi!');
    // The slow step ignores signals and finishes later; the sub-workflow must not go on with it.
    await sleep(700);
    expect(ran).toEqual(['slow']);
  });

  it('aborts an agent tool call in flight inside a sub-workflow: the tool sees its signal abort', async () => {
    let seen: { aborted: boolean; reason: unknown } | null = null;
    let late = false;
    const wait = tool({
      name: 'wait_for_report',
      description: 'waits for a report',
      parameters: z.object({}),
      execute: (_args, { signal }) =>
        new Promise<string>((resolve) => {
          const timer = setTimeout(() => ((late = true), resolve('late')), 2_000);
          signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            seen = { aborted: signal.aborted, reason: signal.reason };
            resolve('aborted');
          });
        }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'wait_for_report', arguments: {} }] }, { text: 'done' }]);
    const agent = new Agent({ name: 'reporter', instructions: 'report', model, tools: [wait] });
    const inner = Workflow.define<string>('inner').step(agentStep(agent)).build();
    const flow = Workflow.define<string>('outer').step(step('prep', (_c, s: string) => `${s}!`)).then(inner);
    const result = await flow.run('hi', { budget: { maxDuration: 200 } });
    expect(result.status).toBe('budget-exceeded');
    expect(result.budgetExceeded?.budget).toBe('maxDuration');
    await sleep(50);
    expect(seen).not.toBeNull();
    expect(seen!.aborted).toBe(true);
    expect(seen!.reason).toBeInstanceOf(BudgetError);
    // The run did not wait for the tool: its 2 s timer was cleared by the abort before it fired.
    expect(late).toBe(false);
  });
});
