import { describe, expect, it } from 'vitest';
import { Coordinator, END, OfflineModel, StateGraph, beforeModelCall, recordModelUsage, resumeRun, type ModelClient, type ModelRequest, type ModelResponse, type ModelStreamEvent, type RunStore } from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';
import { scenarios } from '../../machines/scenarios.js';
import { sqliteTarget, storesClosedAfterEach } from '../persistence/storeTargets.js';

/**
 * The offline model, reporting 100 tokens a call (70 in, 30 out) the way a real client reports
 * usage, and noting which agent made each call.
 */
class CountedModel implements ModelClient {
  readonly name = 'counted';
  readonly agents: string[] = [];
  readonly #inner = new OfflineModel();

  async complete(request: ModelRequest): Promise<ModelResponse> {
    beforeModelCall(this.name, request.signal);
    const response = await this.#inner.complete(request);
    this.#count(request);
    return response;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    beforeModelCall(this.name, request.signal);
    for await (const event of this.#inner.stream(request)) {
      if (event.type === 'response') this.#count(request);
      yield event;
    }
  }

  #count(request: ModelRequest): void {
    this.agents.push(request.agent ?? 'unnamed');
    recordModelUsage(this.name, { inputTokens: 70, outputTokens: 30, totalTokens: 100 });
  }
}

const MULTI = scenarios.find((s) => s.id === '5-multi')!.message;
const SPECIALISTS = new Set(['orders', 'policy_writer', 'report']);

const targets: Array<[string, boolean]> = [
  ['in memory', false],
  ['stored in SQLite', true],
];
const openStore = storesClosedAfterEach();
const storeOf = (durable: boolean): { store?: RunStore } => (durable ? { store: openStore(sqliteTarget) } : {});

describe.each(targets)('a coordinator’s specialists spend their parent’s budget, %s', (_where, durable) => {
  it('customer-service multi request: a specialist spends maxTokens and the run goes to human_handoff', async () => {
    const options = storeOf(durable);
    const model = new CountedModel();
    // The classifier spends 100; the first specialist call the second 100; nothing after that.
    const run = await customerService({ model }).run(MULTI, { budget: { maxTokens: 200 }, ...options });
    expect(model.agents[0]).toBe('classifier');
    expect(model.agents).toHaveLength(2);
    expect(SPECIALISTS.has(model.agents[1]!)).toBe(true);
    expect(run.status).toBe('waiting');
    expect(run.waiting?.nodeId).toBe('human_handoff');
    expect(run.path).toEqual(['ingest', 'classify', 'multi_plan', 'specialist', 'human_handoff']);
    expect(run.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 200, spent: 200 });
    expect(run.spent?.tokens).toBe(200);
    expect(run.spent?.models).toEqual({ counted: { input: 140, output: 60, total: 200 } });
    // A resumed run (from the store, or held in memory) keeps what the specialists spent.
    const done = await resumeRun(customerService({ model: new CountedModel() }), run.runId, { reply: 'A person answers.' }, options);
    expect(done.status).toBe('completed');
    expect(done.spent?.tokens).toBe(200);
  });

  it('with room for every call, the specialists’ calls are in the parent’s spent tokens', async () => {
    const model = new CountedModel();
    const run = await customerService({ model }).run(MULTI, { budget: { maxTokens: 1_000_000 }, ...storeOf(durable) });
    expect(run.status).toBe('completed');
    const bySpecialists = model.agents.filter((a) => SPECIALISTS.has(a)).length;
    expect(bySpecialists).toBeGreaterThanOrEqual(3);
    expect(run.spent?.tokens).toBe(100 * model.agents.length);
  });

  it.each([
    [{ onFailure: 'continue' as const }],
    [{ onFailure: 'fail' as const }],
    [{ onFailure: 'cancel-siblings' as const, minCompleted: 1 }],
  ])('a coordinator (%j) whose specialist’s model call is refused ends the run budget-exceeded, though its next hop is the end', async (policy) => {
    const model = new CountedModel();
    const talker = (name: string) =>
      new StateGraph({ name })
        .addNode('say', async (_ctx, request) => (await model.complete({ messages: [{ role: 'user', content: String(request.input) }], tools: [], agent: name })).text ?? '')
        .addNode('again', async (_ctx, request) => (await model.complete({ messages: [{ role: 'user', content: String(request.input) }], tools: [], agent: name })).text ?? '')
        .start('say')
        .addEdge('say', 'again')
        .addEdge('again', END);
    const coordinator = new Coordinator({ specialists: { one: talker('one') }, ...policy });
    const graph = new StateGraph({ name: 'parent' })
      .addNode('plan', coordinator.planNode(() => [{ kind: 'one', input: 'go' }]))
      .addNode('dispatch', coordinator.dispatchNode())
      .start('plan')
      .addEdge('plan', 'dispatch')
      .addEdge('dispatch', END);
    const run = await graph.run('hi', { budget: { maxTokens: 100 }, ...storeOf(durable) });
    expect(model.agents).toEqual(['one']);
    expect(run.status).toBe('budget-exceeded');
    expect(run.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 100, spent: 100 });
    expect(run.error?.code).toBe('budget_exceeded');
    expect(run.path).toEqual(['plan', 'dispatch']);
  });
});
