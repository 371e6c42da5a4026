import { describe, expect, it } from 'vitest';
import {
  Agent,
  AgentNode,
  BudgetError,
  DEFAULT_PRICES,
  END,
  OfflineModel,
  OpenAIChatModel,
  StateGraph,
  Workflow,
  costOf,
  resumeRun,
  step,
  type WorkflowRun,
} from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';
import { useFakeOpenAIServer } from '../support/useFakeOpenAIServer.js';

const USAGES = [
  { prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290 },
  { prompt_tokens: 777, completion_tokens: 333, total_tokens: 1110 },
  { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
];
const sum = (key: 'prompt_tokens' | 'completion_tokens' | 'total_tokens') => USAGES.reduce((n, u) => n + u[key], 0);

/** Three agents in a row, each one model turn. */
function agentChain(model: OpenAIChatModel) {
  const agent = (name: string) => new AgentNode(new Agent({ name, instructions: `You are ${name}.`, model }));
  return new StateGraph({ name: 'chain' })
    .addNode('one', agent('one'))
    .addNode('two', agent('two'))
    .addNode('three', agent('three'))
    .start('one')
    .addEdge('one', 'two')
    .addEdge('two', 'three')
    .addEdge('three', END);
}

describe('tokens and cost against the usage the fake OpenAI server reports', () => {
  const server = useFakeOpenAIServer();
  const model = () => new OpenAIChatModel({ model: 'gpt-4o-mini', baseURL: server().baseURL, apiKey: 'sk-test', maxRetries: 0 });

  it.each([
    ['run() (non-streamed calls)', false],
    ['stream() (streamed calls, usage in the last chunk)', true],
  ])('add up exactly through %s', async (_how, streamed) => {
    server().enqueue(...USAGES.map((usage, i) => ({ text: `reply ${i + 1}`, usage })));
    const graph = agentChain(model());
    let run: WorkflowRun | undefined;
    if (streamed) {
      for await (const event of graph.stream('hi', { budget: {} })) if (event.type === 'run.completed') run = event.run as WorkflowRun;
    } else {
      run = await graph.run('hi', { budget: {} });
    }
    expect(run?.status).toBe('completed');
    expect(server().requests.map((r) => r.body.stream === true)).toEqual([streamed, streamed, streamed]);
    expect(run?.spent?.tokens).toBe(sum('total_tokens'));
    expect(run?.spent?.models).toEqual({ 'openai:gpt-4o-mini': { input: sum('prompt_tokens'), output: sum('completion_tokens'), total: sum('total_tokens') } });
    const price = DEFAULT_PRICES['gpt-4o-mini']!;
    expect(run?.spent?.costUsd).toBe(costOf(price, sum('prompt_tokens'), sum('completion_tokens')));
    expect(run?.spent?.costUsd).toBeCloseTo((2020 * 0.15 + 390 * 0.6) / 1e6, 15);
    expect(run?.state.get('workflow.accumulatedCost')).toBe(run?.spent?.costUsd);
  });

  it('a dated model name is priced by its family and a run price overrides the default', async () => {
    server().enqueue({ text: 'a', usage: USAGES[0]! }, { text: 'b', usage: USAGES[0]! });
    const dated = new OpenAIChatModel({ model: 'gpt-4o-mini-2024-07-18', baseURL: server().baseURL, apiKey: 'sk-test', maxRetries: 0 });
    const graph = new StateGraph({ name: 'one' }).addNode('a', new AgentNode(new Agent({ name: 'a', instructions: 'a', model: dated }))).start('a');
    const byDefault = await graph.run('hi', { budget: {} });
    expect(byDefault.spent?.costUsd).toBe(costOf(DEFAULT_PRICES['gpt-4o-mini']!, 1234, 56));
    const own = await graph.run('hi', { budget: { prices: { 'gpt-4o-mini': { input: 1, output: 1 } } } });
    expect(own.spent?.costUsd).toBe(1290 / 1e6);
  });

  it('maxTokens stops the chain after the agent whose answer spent it, without calling the server again', async () => {
    server().enqueue(...USAGES.map((usage, i) => ({ text: `reply ${i + 1}`, usage })));
    const run = await agentChain(model()).run('hi', { budget: { maxTokens: 2000 } });
    expect(run.status).toBe('budget-exceeded');
    expect(run.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 2000, spent: 2400 });
    expect(run.outputText).toBe('reply 2');
    expect(server().requests).toHaveLength(2);
  });

  it('maxDuration aborts a model call in flight: the call and the node see the abort, the run ends budget-exceeded', async () => {
    server().enqueue({ text: 'fast', usage: USAGES[2]! }, { text: 'never', stall: 'headers' });
    const slow = model();
    let seen: { error: unknown; aborted: boolean } | null = null;
    let settled!: () => void;
    const nodeDone = new Promise<void>((resolve) => (settled = resolve));
    const graph = new StateGraph({ name: 'slow' })
      .addNode('quick', async () => (await slow.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).text)
      .addNode('stuck', async (ctx) => {
        try {
          return (await slow.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: ctx.signal })).text;
        } catch (error) {
          seen = { error, aborted: ctx.signal.aborted };
          throw error;
        } finally {
          settled();
        }
      })
      .start('quick')
      .addEdge('quick', 'stuck')
      .addEdge('stuck', END);
    const run = await graph.run('hi', { budget: { maxDuration: 400 } });
    await nodeDone;
    expect(run.status).toBe('budget-exceeded');
    expect(run.budgetExceeded?.budget).toBe('maxDuration');
    expect(run.budgetExceeded?.spent).toBeGreaterThanOrEqual(400);
    expect(run.outputText).toBe('fast');
    expect(run.path).toEqual(['quick', 'stuck']);
    expect(server().requests).toHaveLength(2);
    expect(seen!.aborted).toBe(true);
    expect(seen!.error).toBeInstanceOf(BudgetError);
    expect((seen!.error as BudgetError).code).toBe('budget_exceeded');
  });

  it('maxDuration aborts a workflow step\'s model call in flight too', async () => {
    server().enqueue({ text: 'never', stall: 'headers' });
    const slow = model();
    const flow = Workflow.define<string>('slow-flow')
      .step(step('prep', (_c, s: string) => `${s}!`))
      .then(step('call', async (_c, s: string) => (await slow.complete({ messages: [{ role: 'user', content: s }], tools: [] })).text));
    const result = await flow.run('hi', { budget: { maxDuration: 300 } });
    expect(result.status).toBe('budget-exceeded');
    expect(result.budgetExceeded?.budget).toBe('maxDuration');
    expect(result.output).toBe('hi!');
  });
});

describe('onBudgetExceeded', () => {
  it('sends the customer-service graph to human_handoff with the reason, and a reply finishes the run', async () => {
    const graph = customerService({ model: new OfflineModel() });
    const run = await graph.run('Where is my order 1001? It has not arrived.', { budget: { maxIterations: 2 } });
    expect(run.status).toBe('waiting');
    expect(run.waiting?.nodeId).toBe('human_handoff');
    expect(run.waiting?.reason).toBe("the run's maxIterations budget is spent: 2 of 2 steps; a person takes over");
    expect(run.budgetExceeded).toEqual({ budget: 'maxIterations', limit: 2, spent: 2 });
    expect(run.path).toHaveLength(3);
    const done = await resumeRun(graph, run.runId, { reply: 'A person answers: your order ships today.' });
    expect(done.status).toBe('completed');
    expect(done.outputText).toContain('your order ships today');
    expect(done.budgetExceeded).toEqual({ budget: 'maxIterations', limit: 2, spent: 2 });
  });

  it('a graph without one ends budget-exceeded, and naming a node that does not exist is refused', () => {
    const graph = new StateGraph({ name: 'h' }).addNode('a', () => 'a').start('a').onBudgetExceeded('missing' as never);
    expect(() => graph.toMachine()).toThrow(/onBudgetExceeded\("missing"\): node not found/);
  });
});
