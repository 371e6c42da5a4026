import { describe, expect, it } from 'vitest';
import { BudgetError, Workflow, step, type ModelClient, type RunStore, type Step } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { memoryTarget, sqliteTarget, type StoreTarget, storesClosedAfterEach } from '../persistence/storeTargets.js';

/** Each turn reports 100 tokens. */
const scripted = (turns: number) => new ScriptedModel(Array.from({ length: turns }, (_, i) => ({ text: `answer ${i + 1}`, usage: { inputTokens: 60, outputTokens: 40, totalTokens: 100 } })));
const ask = async (model: ModelClient, text: unknown) => (await model.complete({ messages: [{ role: 'user', content: String(text) }], tools: [] })).text ?? '';
/** A step that talks to the model twice: with maxTokens 100 its second call is refused. */
const twice = (model: ModelClient, name: string): Step<string, string> =>
  step(name, async (_c, s: string) => {
    await ask(model, s);
    return ask(model, `${s} again`);
  });
const first = step('first', (_c, s: string) => `${s}!`);
const plain = (name: string) => step(name, (_c, s: string) => `${name}(${s})`);

/** Where the budget is spent: each shape runs `first`, then a nested step that spends it. */
/** A workflow as these tests run it. */
type Flow = Pick<Workflow<string, unknown>, 'run'>;
const SHAPES: Array<[string, (model: ModelClient) => Flow]> = [
  ['a sub-workflow', (m) => Workflow.define<string>('outer').step(first).then(Workflow.define<string>('inner').step(plain('warm')).then(twice(m, 'spend')).build())],
  ['a sub-workflow two deep', (m) => Workflow.define<string>('outer').step(first).then(Workflow.define<string>('mid').step(Workflow.define<string>('inner').step(twice(m, 'spend')).build()).build())],
  ['a parallel branch', (m) => Workflow.define<string>('outer').step(first).parallel(plain('other'), twice(m, 'spend'))],
  ['a gather branch', (m) => Workflow.define<string>('outer').step(first).gather(twice(m, 'spend'), plain('other'))],
  ['a sub-workflow in a parallel branch', (m) => Workflow.define<string>('outer').step(first).parallel(plain('other'), Workflow.define<string>('inner').step(twice(m, 'spend')).build())],
  ['a dynamic fan-out item', (m) => Workflow.define<string>('outer').step(first).parallel((_c, s: string) => [s], (_item, i) => twice(m, `spend-${i}`))],
  ['a sub-workflow as a fan-out item', (m) => Workflow.define<string>('outer').step(first).parallel((_c, s: string) => [s], (_item, i) => Workflow.define<string>(`inner-${i}`).step(twice(m, 'spend')).build())],
];

const targets: Array<[string, (() => StoreTarget) | null]> = [
  ['in memory', null],
  ['stored in SQLite', sqliteTarget],
  ['stored in a MemoryRunStore', memoryTarget],
];

const storeOf = storesClosedAfterEach();

describe.each(targets)('a budget spent inside a nested step, %s', (_where, make) => {
  it.each(SHAPES)('in %s ends the run budget-exceeded with the last completed output', async (_shape, shape) => {
    const store = storeOf(make);
    const model = scripted(10);
    const result = await shape(model).run('hi', { budget: { maxTokens: 100 }, ...(store ? { store } : {}) });
    expect(result.status).toBe('budget-exceeded');
    expect(result.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 100, spent: 100 });
    expect(result.error).toBeInstanceOf(BudgetError);
    expect(result.error?.code).toBe('budget_exceeded');
    expect(result.output).toBe('hi!');
    expect(result.spent?.tokens).toBe(100);
    expect(model.requests).toHaveLength(1);
    if (store) {
      const stored = await store.getRun(result.runId);
      expect(stored?.status).toBe('budget-exceeded');
      expect(stored?.error?.code).toBe('budget_exceeded');
      expect((stored?.snapshot as { context: { budget: { exceeded: unknown } } }).context.budget.exceeded).toEqual({ budget: 'maxTokens', limit: 100, spent: 100 });
    }
  });
});

describe('a nested step failing for another reason', () => {
  it('still fails the run', async () => {
    const boom = step('boom', () => {
      throw new Error('not a budget');
    });
    const shapes = [
      Workflow.define<string>('o1').step(first).then(Workflow.define<string>('i').step(boom).build()),
      Workflow.define<string>('o2').step(first).parallel(plain('other'), boom),
    ];
    for (const flow of shapes) {
      const result = await flow.run('hi', { budget: { maxTokens: 100 } });
      expect(result.status).toBe('failed');
      expect(result.budgetExceeded).toBeUndefined();
    }
  });
});
