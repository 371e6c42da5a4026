import { afterEach, describe, expect, it } from 'vitest';
import {
  ACCUMULATED_TOKENS,
  BUDGET_EXCEEDED,
  BudgetError,
  END,
  StateGraph,
  Workflow,
  humanNode,
  priceFor,
  recordModelUsage,
  resumeRun,
  SqliteRunStore,
  step,
  type BudgetOptions,
  type ModelClient,
  type RunStore,
  type WorkflowContext,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { memoryTarget, sqliteTarget, type StoreTarget } from '../persistence/storeTargets.js';

/** Each turn reports 60 input and 40 output tokens. */
const USAGE = { inputTokens: 60, outputTokens: 40, totalTokens: 100 };
const scripted = (turns: number) => new ScriptedModel(Array.from({ length: turns }, (_, i) => ({ text: `answer ${i + 1}`, usage: USAGE })));
/** 1000 USD per million input tokens and 2000 per million output: 0.14 USD a turn. */
const PRICES = { scripted: { input: 1000, output: 2000 } };

/** A clock the nodes move forward: each step takes 25 s of it. */
class StepClock {
  t = 1_000_000;
  now = () => this.t;
}

const ask = async (model: ModelClient, text: unknown) => (await model.complete({ messages: [{ role: 'user', content: String(text) }], tools: [] })).text ?? '';

/** A graph that talks to the model once per step, forever (the fuse is far away). */
function talkGraph(model: ModelClient, clock?: StepClock) {
  return new StateGraph({ name: 'talk', maxSteps: 1_000 })
    .addNode('talk', async (_ctx, request) => {
      const answer = await ask(model, request.input);
      if (clock) clock.t += 25_000;
      return answer;
    })
    .start('talk')
    .addEdge('talk', 'talk');
}

/** The same as a typed workflow: a loop whose body talks to the model once per pass. */
function talkWorkflow(model: ModelClient, clock?: StepClock) {
  return Workflow.define<string>('talk-flow')
    .repeatUntil(() => false)
    .step(
      step('talk', async (_c, s: string) => {
        const answer = await ask(model, s);
        if (clock) clock.t += 25_000;
        return answer;
      }),
    )
    .end();
}

type Case = { budget: BudgetOptions; expected: { budget: string; limit: number; spent: number }; talks: number; clock?: boolean };
/** Each budget with the talk it stops after: 3 talks spend 300 tokens, 0.42 USD, 75 s. */
const CASES: Array<[string, Case]> = [
  ['maxTokens', { budget: { maxTokens: 250 }, expected: { budget: 'maxTokens', limit: 250, spent: 300 }, talks: 3 }],
  ['maxCost', { budget: { maxCost: 0.3, prices: PRICES }, expected: { budget: 'maxCost', limit: 0.3, spent: (180 * 1000 + 120 * 2000) / 1e6 }, talks: 3 }],
  ['maxDuration', { budget: { maxDuration: 60_000 }, expected: { budget: 'maxDuration', limit: 60_000, spent: 75_000 }, talks: 3, clock: true }],
];

const targets: Array<[string, (() => StoreTarget) | null]> = [
  ['in memory', null],
  ['stored in SQLite', sqliteTarget],
  ['stored in a MemoryRunStore', memoryTarget],
];

const open: StoreTarget[] = [];
afterEach(async () => {
  for (const target of open.splice(0)) await target.close();
});
const storeOf = (make: (() => StoreTarget) | null): RunStore | undefined => {
  if (make === null) return undefined;
  const target = make();
  open.push(target);
  return target.store;
};

describe.each(targets)('budgets of a run %s', (_where, make) => {
  it.each(CASES)('%s stops a StateGraph after the step that spent it, keeping its output', async (_name, c) => {
    const store = storeOf(make);
    const model = scripted(10);
    const clock = c.clock ? new StepClock() : undefined;
    const run = await talkGraph(model, clock).run('hi', { budget: c.budget, ...(store ? { store } : {}), ...(clock ? { clock } : {}) });
    expect(run.status).toBe('budget-exceeded');
    expect(run.budgetExceeded).toEqual(c.expected);
    expect(run.steps).toBe(c.talks);
    expect(model.requests).toHaveLength(c.talks);
    expect(run.outputText).toBe(`answer ${c.talks}`);
    expect(run.spent?.tokens).toBe(100 * c.talks);
    expect(run.state.get(ACCUMULATED_TOKENS)).toBe(100 * c.talks);
    expect(run.state.get(BUDGET_EXCEEDED)).toEqual(c.expected);
    expect(run.error).toBeInstanceOf(BudgetError);
    expect(run.error?.code).toBe('budget_exceeded');
    if (store) {
      const stored = await store.getRun(run.runId);
      expect(stored?.status).toBe('budget-exceeded');
      expect(stored?.outputText).toBe(`answer ${c.talks}`);
      expect(stored?.error?.code).toBe('budget_exceeded');
      expect((stored?.snapshot as { context: { budget: { exceeded: unknown; tokens: number } } }).context.budget).toMatchObject({ exceeded: c.expected, tokens: 100 * c.talks });
    }
  });

  it.each(CASES)('%s stops a Workflow after the step that spent it, keeping its output', async (_name, c) => {
    const store = storeOf(make);
    const model = scripted(10);
    const clock = c.clock ? new StepClock() : undefined;
    const result = await talkWorkflow(model, clock).run('hi', { budget: c.budget, maxIterations: 1_000, ...(store ? { store } : {}), ...(clock ? { clock } : {}) });
    expect(result.status).toBe('budget-exceeded');
    expect(result.budgetExceeded).toEqual(c.expected);
    expect(model.requests).toHaveLength(c.talks);
    expect(result.output).toBe(`answer ${c.talks}`);
    expect(result.path).toEqual(Array(c.talks).fill('talk'));
    expect(result.context.get('workflow.accumulatedTokens')).toBe(100 * c.talks);
    if (store) expect((await store.getRun(result.runId))?.status).toBe('budget-exceeded');
  });

  it('maxIterations stops a StateGraph before the step past its limit', async () => {
    const store = storeOf(make);
    const model = scripted(10);
    const run = await talkGraph(model).run('hi', { budget: { maxIterations: 4 }, ...(store ? { store } : {}) });
    expect(run.status).toBe('budget-exceeded');
    expect(run.budgetExceeded).toEqual({ budget: 'maxIterations', limit: 4, spent: 4 });
    expect(run.path).toEqual(['talk', 'talk', 'talk', 'talk']);
    expect(run.outputText).toBe('answer 4');
    if (store) expect((await store.getRun(run.runId))?.status).toBe('budget-exceeded');
  });

  it('maxIterations stops a Workflow at its limit of steps (structural steps counted)', async () => {
    const store = storeOf(make);
    const model = scripted(20);
    const result = await talkWorkflow(model).run('hi', { budget: { maxIterations: 7 }, maxIterations: 1_000, ...(store ? { store } : {}) });
    expect(result.status).toBe('budget-exceeded');
    expect(result.budgetExceeded).toEqual({ budget: 'maxIterations', limit: 7, spent: 7 });
    expect(result.steps).toBe(7);
    expect(model.requests.length).toBeGreaterThan(0);
    expect(model.requests.length).toBeLessThan(7);
  });

  it('a model call refused by a spent budget stops the run inside the node, with the last completed output', async () => {
    const store = storeOf(make);
    const model = scripted(10);
    const graph = new StateGraph({ name: 'twice' })
      .addNode('first', () => 'before the model')
      .addNode('twice', async (ctx) => {
        ctx.put('started', true);
        await ask(model, 'one');
        ctx.put('after-one', true);
        await ask(model, 'two');
        return 'not reached';
      })
      .start('first')
      .addEdge('first', 'twice')
      .addEdge('twice', END);
    const run = await graph.run('hi', { budget: { maxTokens: 100 }, ...(store ? { store } : {}) });
    expect(run.status).toBe('budget-exceeded');
    expect(run.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 100, spent: 100 });
    expect(model.requests).toHaveLength(1);
    expect(run.outputText).toBe('before the model');
    expect(run.path).toEqual(['first', 'twice']);
    // Writes made before the refusal are kept, as a failing node's are.
    expect(run.state.get('after-one')).toBe(true);
  });

  it('a run without a budget is not metered and keeps no budget keys', async () => {
    const store = storeOf(make);
    const run = await new StateGraph({ name: 'plain' }).addNode('a', () => 'x').start('a').run('hi', store ? { store } : {});
    expect(run.status).toBe('completed');
    expect(run.spent).toBeUndefined();
    expect(run.state.has(ACCUMULATED_TOKENS)).toBe(false);
  });
});

/** a → ask (a person) → b → c, each of a, b, c one model turn of 100 tokens. */
function askGraph(model: ModelClient) {
  const talk = (name: string) => async (ctx: WorkflowContext) => {
    ctx.put(name, true);
    return ask(model, name);
  };
  return new StateGraph({ name: 'ask-between' })
    .addNode('a', talk('a'))
    .addNode('ask', humanNode({ reason: 'check a' }))
    .addNode('b', talk('b'))
    .addNode('c', talk('c'))
    .start('a')
    .addEdge('a', 'ask')
    .addEdge('ask', 'b')
    .addEdge('b', 'c')
    .addEdge('c', END);
}

describe('spent budgets survive resume', () => {
  it.each([['SQLite', sqliteTarget], ['a MemoryRunStore', memoryTarget]] as const)('a run stored in %s resumed (SQLite: through a second connection) cannot overspend', async (_name, make) => {
    const target = make();
    open.push(target);
    const first = await askGraph(scripted(1)).run('hi', { store: target.store, budget: { maxTokens: 150 } });
    expect(first.status).toBe('waiting');
    expect(first.spent?.tokens).toBe(100);
    // Resumed with another model (another process would have its own): the spent 100 tokens come from the store.
    const model = scripted(5);
    const second = target.env.SWITCHBOARD_DB ? new SqliteRunStore({ file: target.env.SWITCHBOARD_DB }) : target.store;
    const resumed = await resumeRun(askGraph(model), first.runId, { reply: 'ok' }, { store: second });
    if (second !== target.store) await second.close();
    expect(resumed.status).toBe('budget-exceeded');
    expect(resumed.path).toEqual(['a', 'ask', 'b']);
    expect(resumed.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 150, spent: 200 });
    expect(resumed.state.get(ACCUMULATED_TOKENS)).toBe(200);
    expect(model.requests).toHaveLength(1);
  });

  it('a run held in memory resumed without a store cannot overspend', async () => {
    const first = await askGraph(scripted(1)).run('hi', { budget: { maxTokens: 150 } });
    expect(first.status).toBe('waiting');
    const model = scripted(5);
    const resumed = await resumeRun(askGraph(model), first.runId, { reply: 'ok' });
    expect(resumed.status).toBe('budget-exceeded');
    expect(resumed.path).toEqual(['a', 'ask', 'b']);
    expect(resumed.spent?.tokens).toBe(200);
  });

  it('runs with budgets side by side, and one started inside another\'s node, each meter only their own model calls', async () => {
    const [m1, m2, m3] = [scripted(10), scripted(10), scripted(10)];
    let inner: Awaited<ReturnType<ReturnType<typeof talkGraph>['run']>> | undefined;
    const outer = new StateGraph({ name: 'outer' })
      .addNode('call', async (ctx) => {
        await ask(m3, 'outer');
        inner = await talkGraph(m2).run('in', { budget: { maxTokens: 200 } });
        // Back in this run's node: its model calls are this run's again.
        await ask(m3, 'outer again');
        ctx.put('done', true);
        return 'ok';
      })
      .start('call')
      .addEdge('call', END);
    const [a, b] = await Promise.all([talkGraph(m1).run('a', { budget: { maxTokens: 300 } }), outer.run('b', { budget: { maxTokens: 10_000 } })]);
    expect([a.status, a.spent?.tokens, m1.requests.length]).toEqual(['budget-exceeded', 300, 3]);
    expect([inner?.status, inner?.spent?.tokens, m2.requests.length]).toEqual(['budget-exceeded', 200, 2]);
    expect([b.status, b.spent?.tokens, m3.requests.length]).toEqual(['completed', 200, 2]);
    // A run without a budget after them is not metered by any of theirs.
    const after = await talkGraph(scripted(3)).run('c', { maxSteps: 3 });
    expect(after.spent).toBeUndefined();
  });

  it('a stored snapshot of a running run carries its active time so far, though no step spent tokens', async () => {
    const target = sqliteTarget();
    open.push(target);
    const clock = new StepClock();
    let seen: unknown;
    const graph = new StateGraph({ name: 'timed' })
      .addNode('a', () => ((clock.t += 25_000), 'a'))
      .addNode('b', () => ((clock.t += 25_000), 'b'))
      .addNode('c', async (ctx) => {
        // The step records of a and b are written a moment after the steps.
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = ((await target.store.getRun(ctx.runId))?.snapshot as { context: { budget: { elapsedMs: number; tokens: number } } }).context.budget;
        return 'c';
      })
      .start('a')
      .addEdge('a', 'b')
      .addEdge('b', 'c')
      .addEdge('c', END);
    const run = await graph.run('hi', { store: target.store, clock, budget: { maxDuration: 600_000 } });
    expect(run.status).toBe('completed');
    expect(seen).toMatchObject({ elapsedMs: 50_000, tokens: 0 });
    expect(run.spent?.durationMs).toBe(50_000);
  });

  it('time spent waiting for a person does not count against maxDuration', async () => {
    const target = sqliteTarget();
    open.push(target);
    const clock = { t: 0, now() { return this.t; } };
    const model = scripted(5);
    const first = await askGraph(model).run('hi', { store: target.store, clock, budget: { maxDuration: 60_000 } });
    expect(first.status).toBe('waiting');
    clock.t += 3_600_000;
    const resumed = await resumeRun(askGraph(model), first.runId, { reply: 'ok' }, { store: target.store, clock });
    expect(resumed.status).toBe('completed');
    expect(resumed.spent?.durationMs).toBeLessThan(60_000);
  });

  it('a stored workflow waiting at a person resumed cannot overspend', async () => {
    const target = sqliteTarget();
    open.push(target);
    const { HumanGate } = await import('../../src/index.js');
    const flow = (model: ModelClient) =>
      Workflow.define<string>('gated-talk')
        .step(step('a', (_c, s: string) => ask(model, s)))
        .gate(new HumanGate({ name: 'check' }))
        .onPass(step('b', (_c, s: string) => ask(model, s)))
        .onFail(step('no', () => 'no'))
        .end()
        .then(step('c', (_c, s: string) => ask(model, s)));
    const first = await flow(scripted(1)).run('hi', { store: target.store, budget: { maxTokens: 150 } });
    expect(first.status).toBe('waiting');
    const model = scripted(5);
    const resumed = await flow(model).resume(first.runId, { decision: 'PASS' } as never, { store: target.store });
    expect(resumed.status).toBe('budget-exceeded');
    expect(resumed.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 150, spent: 200 });
    expect(resumed.path).not.toContain('c');
    expect(model.requests).toHaveLength(1);
  });
});

describe('budget options', () => {
  const graph = () => new StateGraph({ name: 'x' }).addNode('a', () => 'a').start('a');
  it.each([
    [{ maxCost: -1 }, 'maxCost'],
    [{ maxTokens: 1.5 }, 'maxTokens'],
    [{ maxIterations: 0 }, 'maxIterations'],
    [{ maxDuration: Number.NaN }, 'maxDuration'],
    [{ maxTurns: 3 }, 'maxTurns'],
    [{ prices: { 'gpt-x': { input: -1, output: 1 } } }, 'prices["gpt-x"]'],
    [{ prices: { 'gpt-x': { input: 1, output: 1, currency: 'EUR' } } }, 'prices["gpt-x"]'],
    [{ prices: { ' ': { input: 1, output: 1 } } }, 'prices[" "]'],
    [{ prices: [{ input: 1, output: 1 }] }, 'budget.prices:'],
    ['cheap', 'budget'],
  ])('refuses %j before anything runs, naming the field', async (budget, field) => {
    const error = await graph().run('x', { budget: budget as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetError);
    expect((error as BudgetError).code).toBe('invalid_budget');
    expect((error as BudgetError).message).toContain(field);
  });

  it('usage a custom model client reports that is no token count fails the run, instead of switching its budget off', async () => {
    // A client that sums its provider's fields without checking them reports NaN when one is missing:
    // NaN compares as never reaching a limit, so the budget stopped nothing from then on.
    for (const [usage, field] of [
      [{ inputTokens: 60, outputTokens: Number.NaN }, 'outputTokens'],
      [{ inputTokens: 60, outputTokens: 40, totalTokens: Number.NaN }, 'totalTokens'],
      [{ inputTokens: -60, outputTokens: 40 }, 'inputTokens'],
      [{ inputTokens: '60', outputTokens: 40 }, 'inputTokens'],
    ] as const) {
      let calls = 0;
      const graph = new StateGraph({ name: 'custom' })
        .addNode('call', () => {
          calls += 1;
          recordModelUsage('house-model', usage as never);
          return 'answer';
        })
        .start('call')
        .addConditionalEdges('call', () => (calls < 5 ? 'again' : 'done'), { again: 'call', done: END });
      const run = await graph.run('x', { budget: { maxTokens: 150 } });
      expect(run.status).toBe('failed');
      expect(run.error?.code).toBe('invalid_usage');
      expect(run.error?.message).toContain(`house-model reported usage.${field}`);
      expect(calls).toBe(1);
    }
  });

  it('a default price stands for its dated snapshots, not for another model whose id it begins (o3 is not o3-pro)', async () => {
    expect(priceFor('gpt-4o-mini-2024-07-18', undefined)).toEqual({ input: 0.15, output: 0.6 });
    expect(priceFor('openai:claude-3-5-sonnet-20241022', undefined)).toEqual({ input: 3, output: 15 });
    expect(priceFor('o3-mini-2025-01-31', undefined)).toEqual({ input: 1.1, output: 4.4 });
    expect(priceFor('mistral-large-latest', undefined)).toEqual({ input: 2, output: 6 });
    expect(priceFor('gemini-1.5-pro-002', undefined)).toEqual({ input: 1.25, output: 5 });
    // Ten times dearer than the model they begin with: priced as it, maxCost let them spend ten times the limit.
    for (const model of ['o3-pro', 'o1-pro-2025-03-19', 'gpt-4o-audio-preview']) expect(priceFor(model, undefined)).toBeNull();
    // A run's own table keeps the longest-prefix rule: its keys are the caller's.
    expect(priceFor('house-model-large', { 'house-model': { input: 1, output: 2 } })).toEqual({ input: 1, output: 2 });
    const model: ModelClient = new ScriptedModel([{ text: 'x' }]);
    Object.defineProperty(model, 'name', { value: 'openai:o3-pro' });
    const run = await new StateGraph({ name: 'p' }).addNode('a', () => ask(model, 'x')).start('a').run('x', { budget: { maxCost: 1 } });
    expect(run.error?.code).toBe('price_missing');
  });

  it('a run with maxCost refuses a model it has no price for, and says how to add one', async () => {
    const model: ModelClient = new ScriptedModel([{ text: 'x' }]);
    Object.defineProperty(model, 'name', { value: 'openai:house-model-7' });
    const run = await new StateGraph({ name: 'p' }).addNode('a', () => ask(model, 'x')).start('a').run('x', { budget: { maxCost: 1 } });
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('price_missing');
    expect(run.error?.message).toContain('budget.prices');
    const priced = await new StateGraph({ name: 'p' }).addNode('a', () => ask(model, 'x')).start('a').run('x', { budget: { maxCost: 1, prices: { 'house-model-7': { input: 1, output: 1 } } } });
    expect(priced.status).toBe('completed');
    expect(priced.outputText).toBe('x');
  });
});
