import { describe, expect, it } from 'vitest';
import { AgentContext, GraphDefinitionError, HumanGate, Workflow, step, type ModelClient, type RunStore } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { sqliteTarget, storesClosedAfterEach } from '../persistence/storeTargets.js';

/** Each turn reports 100 tokens. */
const scripted = (turns: number) => new ScriptedModel(Array.from({ length: turns }, (_, i) => ({ text: `answer ${i + 1}`, usage: { inputTokens: 60, outputTokens: 40, totalTokens: 100 } })));
const ask = async (model: ModelClient, text: unknown) => (await model.complete({ messages: [{ role: 'user', content: String(text) }], tools: [] })).text ?? '';

/** A loop that talks to the model once per pass, forever. */
const talk = (model: ModelClient) =>
  Workflow.define<string>('talk-flow')
    .repeatUntil(() => false)
    .step(step('talk', (_c, s: string) => ask(model, s)))
    .end();

/** The handler: says which budget was spent and what it got, and may call the model (the budgets no longer stop the run). */
const apologise = (model: ModelClient | null) =>
  step('apologise', async (ctx, last: unknown) => {
    const spent = ctx.require(AgentContext.BUDGET_EXCEEDED);
    const extra = model === null ? '' : ` / ${await ask(model, 'sorry')}`;
    return `${spent.budget} ${spent.spent} of ${spent.limit} after ${JSON.stringify(last)}${extra}`;
  });

const targets: Array<[string, boolean]> = [
  ['in memory', false],
  ['stored in SQLite', true],
];
const openStore = storesClosedAfterEach();
const storeOf = (durable: boolean): { store?: RunStore } => (durable ? { store: openStore(sqliteTarget) } : {});

describe.each(targets)('Workflow.onBudgetExceeded, %s', (_where, durable) => {
  it('sends a run whose budget is spent to the step, which finds { budget, limit, spent } and the last output', async () => {
    const options = storeOf(durable);
    const model = scripted(10);
    const flow = talk(model).onBudgetExceeded(apologise(model));
    const result = await flow.run('hi', { budget: { maxTokens: 250 }, maxIterations: 1_000, ...options });
    expect(result.status).toBe('completed');
    expect(result.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 250, spent: 300 });
    expect(result.output).toBe('maxTokens 300 of 250 after "answer 3" / answer 4');
    expect(result.path).toEqual(['talk', 'talk', 'talk', 'apologise']);
    expect(result.context.get(AgentContext.BUDGET_EXCEEDED)).toEqual({ budget: 'maxTokens', limit: 250, spent: 300 });
    // The handler's own call went through and is counted.
    expect(result.spent?.tokens).toBe(400);
    expect(result.error).toBeUndefined();
    if (options.store) {
      const stored = await options.store.getRun(result.runId);
      expect(stored?.status).toBe('completed');
      expect(stored?.outputText).toBe(result.output);
    }
  });

  it('takes a budget spent inside a parallel branch and inside a sub-workflow to the step', async () => {
    for (const make of [
      (m: ModelClient) => Workflow.define<string>('fork').step(step('first', (_c, s: string) => `${s}!`)).parallel(step('spend', async (_c, s: string) => (await ask(m, s), ask(m, s)))),
      (m: ModelClient) => Workflow.define<string>('nest').step(step('first', (_c, s: string) => `${s}!`)).then(Workflow.define<string>('inner').step(step('spend', async (_c, s: string) => (await ask(m, s), ask(m, s)))).build()),
    ]) {
      const model = scripted(10);
      const result = await make(model).onBudgetExceeded(apologise(null)).run('hi', { budget: { maxTokens: 100 }, ...storeOf(durable) });
      expect(result.status).toBe('completed');
      expect(result.output).toBe('maxTokens 100 of 100 after "hi!"');
      expect(result.path.at(-1)).toBe('apologise');
      expect(model.requests).toHaveLength(1);
    }
  });

  it('runs the step for maxIterations too, and not at all when no budget is spent', async () => {
    const flow = () => talk(scripted(20)).onBudgetExceeded(apologise(null));
    const stopped = await flow().run('hi', { budget: { maxIterations: 5 }, maxIterations: 1_000, ...storeOf(durable) });
    expect(stopped.status).toBe('completed');
    expect(stopped.budgetExceeded).toEqual({ budget: 'maxIterations', limit: 5, spent: 5 });
    expect(stopped.path.at(-1)).toBe('apologise');
    const fine = await Workflow.define<string>('fine').step(step('a', (_c, s: string) => `${s}.`)).onBudgetExceeded(apologise(null)).run('hi', { budget: { maxTokens: 10 }, ...storeOf(durable) });
    expect([fine.status, fine.output, fine.path]).toEqual(['completed', 'hi.', ['a']]);
  });

  it('a sub-workflow step that asks a person makes the run wait, and the reply finishes it', async () => {
    const options = storeOf(durable);
    const person = Workflow.define<unknown>('person')
      .step(step('explain', (ctx) => `${ctx.require(AgentContext.BUDGET_EXCEEDED).budget} spent; a person takes over`))
      .gate(new HumanGate({ name: 'takeover' }))
      .onPass(step('handed', (_c, s: string) => `handled: ${s}`))
      .onFail(step('dropped', () => 'dropped'))
      .end()
      .build();
    const flow = (model: ModelClient) => talk(model).onBudgetExceeded(person);
    const first = await flow(scripted(10)).run('hi', { budget: { maxTokens: 200 }, maxIterations: 1_000, ...options });
    expect(first.status).toBe('waiting');
    expect(first.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 200, spent: 200 });
    const done = await flow(scripted(10)).resume(first.runId, { decision: 'PASS' }, options);
    expect(done.status).toBe('completed');
    expect(done.output).toBe('handled: maxTokens spent; a person takes over');
    expect(done.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 200, spent: 200 });
  });
});

describe('Workflow.onBudgetExceeded as data', () => {
  it('compiles to a budgetNode with an edge on to the finish and none into it', () => {
    const graph = talk(scripted(1)).onBudgetExceeded(apologise(null)).compile();
    expect(graph.budgetNode).toBe('apologise');
    expect(graph.edges.filter((e) => e.to === 'apologise')).toEqual([]);
    expect(graph.edges.filter((e) => e.from === 'apologise')).toEqual([{ from: 'apologise', to: graph.finishNode, condition: 'unconditional' }]);
    expect(talk(scripted(1)).compile().budgetNode).toBeUndefined();
  });

  it('refuses a second handler and a handler that is not a step', () => {
    expect(() => talk(scripted(1)).onBudgetExceeded(apologise(null)).onBudgetExceeded(apologise(null))).toThrow(GraphDefinitionError);
    expect(() => talk(scripted(1)).onBudgetExceeded({} as never)).toThrow(/a step must be an object/);
  });
});
