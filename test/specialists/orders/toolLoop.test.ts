import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { END, OfflineModel, OpenAIChatModel, StateGraph, humanNode, tool, type ModelClient, type WorkflowEvent } from 'switchboard';
import { ScriptedModel, type FakeOpenAIServer } from 'switchboard/testing';
import { ToolObservation, handoffOf, ordersGraph, toolExecuteNode, toolPlanNode, toolPlanRouter } from '../../../specialists/index.js';
import { useFakeOpenAIServer } from '../../support/useFakeOpenAIServer.js';

const NOW = Date.parse('2026-10-10T08:00:00Z');
const clock = { now: () => NOW };
const CHECK = 'Check order SO20261001 for me and see how much can still be refunded.';

const observationsOf = (state: Map<string, unknown>) => z.array(ToolObservation).parse(state.get('toolObservations') ?? []);

/** The customer-service shape of the loop: budget spent goes to a waiting human node with the recorded reason. */
function loopWithHandoff(model: ModelClient) {
  return new StateGraph({ name: 'tool-loop', maxSteps: 40 })
    .addNode('tool_plan', toolPlanNode({ model, clock }))
    .addNode('tool_execute', toolExecuteNode({ clock }))
    .addNode('human_handoff', humanNode({ reason: (ctx) => handoffOf(ctx)?.reason ?? 'needs a person' }))
    .start('tool_plan')
    .addConditionalEdges('tool_plan', toolPlanRouter, { call: 'tool_execute', answer: END, ask: END, budget_spent: 'human_handoff' })
    .addEdge('tool_execute', 'tool_plan');
}

describe('ordersGraph (tool) offline', () => {
  it('looks the order up, then calculates the refund, and states 599 as an estimate', async () => {
    const graph = ordersGraph({ model: new OfflineModel(), clock });
    expect(graph.name).toBe('tool');
    const run = await graph.run(CHECK);
    expect(run.status).toBe('completed');
    expect(run.path).toEqual(['tool_plan', 'tool_execute', 'tool_plan', 'tool_execute', 'tool_plan']);
    expect(run.path.filter((n) => n === 'tool_execute')).toHaveLength(2);
    const observations = observationsOf(run.state);
    expect(observations.map((o) => [o.name, o.ok])).toEqual([['lookup_order', true], ['calculate_refund', true]]);
    expect(run.outputText).toContain('599.00 CNY');
    expect(run.outputText).toMatch(/estimate/i);
    expect(run.state.get('toolPlan')).toMatchObject({ action: 'answer' });
    expect(run.state.get('toolAnswer')).toBe(run.outputText);
    expect(run.state.get('toolRounds')).toBe(2);
    expect(run.state.get('pendingToolCall')).toBeNull();
  });

  it.each([
    ['SO20261002', '764.15 CNY'],
    ['SO20261003', '349.00 CNY'],
    ['SO20261004', '0.00 CNY'],
    ['SO20261005', '129.00 CNY'],
  ])('states the rule amount for %s', async (orderId, amount) => {
    const run = await ordersGraph({ model: new OfflineModel(), clock }).run(`How much of ${orderId} can be refunded?`);
    expect(run.outputText).toContain(`Estimated refund: ${amount}`);
  });

  it('asks for the order number and calls no tool when the request has none', async () => {
    const run = await ordersGraph({ model: new OfflineModel(), clock }).run('How much can I get refunded for my headphones?');
    expect(run.path).toEqual(['tool_plan']);
    expect(run.state.get('toolPlan')).toMatchObject({ action: 'ask' });
    expect(run.outputText).toMatch(/order number/);
    expect(run.state.get('toolObservations')).toBeUndefined();
  });

  it('refuses a malformed order number with a clear observation and tells the customer', async () => {
    const run = await ordersGraph({ model: new OfflineModel(), clock }).run('Refund for SO123 please');
    const [observation] = observationsOf(run.state);
    expect(observation).toMatchObject({ name: 'lookup_order', ok: false, code: 'invalid_tool_arguments', retryable: false });
    expect(observation!.ok === false && observation!.error).toContain('an order number is "SO" followed by 8 digits');
    expect(run.outputText).toContain('The order number SO123 is not valid');
  });

  it('with tool_timeout and budget 3, completes with one failed observation', async () => {
    const run = await ordersGraph({ model: new OfflineModel(), clock }).run(CHECK, { state: { faults: ['tool_timeout'], toolBudget: 3 } });
    expect(run.status).toBe('completed');
    expect(run.path.filter((n) => n === 'tool_execute')).toHaveLength(3);
    const failed = observationsOf(run.state).filter((o) => !o.ok);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ name: 'lookup_order', code: 'tool_timeout', retryable: true });
    expect(run.outputText).toContain('599.00 CNY');
  });

  it('with tool_timeout and budget 2, reports "budget spent" and routes to human_handoff with the reason', async () => {
    const run = await loopWithHandoff(new OfflineModel()).run(CHECK, { state: { faults: ['tool_timeout'], toolBudget: 2 } });
    expect(run.status).toBe('waiting');
    expect(run.path).toEqual(['tool_plan', 'tool_execute', 'tool_plan', 'tool_execute', 'tool_plan', 'human_handoff']);
    expect(run.waiting).toEqual({ nodeId: 'human_handoff', reason: 'tool loop reached budget' });
    expect(run.state.get('handoff')).toEqual({ reason: 'tool loop reached budget', node: 'tool_plan' });
    expect(run.state.get('toolPlan')).toMatchObject({ action: 'budget_spent', call: { name: 'calculate_refund' } });
    expect((run.state.get('lastResult') as { outputText: string }).outputText).toBe('budget spent');
  });

  it('streams the plan and each tool call and result', async () => {
    const events: WorkflowEvent[] = [];
    for await (const event of ordersGraph({ model: new OfflineModel(), clock }).stream(CHECK)) events.push(event);
    const types = events.filter((e) => ['tool.plan', 'tool.call', 'tool.result'].includes(e.type)).map((e) => e.type);
    expect(types).toEqual(['tool.plan', 'tool.call', 'tool.result', 'tool.plan', 'tool.call', 'tool.result', 'tool.plan']);
  });

  it('keeps nothing from one run in the next', async () => {
    const graph = ordersGraph({ model: new OfflineModel(), clock });
    await graph.run(CHECK, { state: { faults: ['tool_timeout'], toolBudget: 1 } });
    const run = await graph.run(CHECK);
    expect(run.path.filter((n) => n === 'tool_execute')).toHaveLength(2);
    expect(observationsOf(run.state).every((o) => o.ok)).toBe(true);
  });
});

/** Runs tool_execute alone on a seeded state. */
async function execute(pendingToolCall: unknown, toolObservations: unknown[] = [], extra: Record<string, unknown> = {}) {
  const graph = new StateGraph({ name: 'execute-only' }).addNode('tool_execute', toolExecuteNode({ clock, ...extra })).start('tool_execute');
  const run = await graph.run('x', { state: { pendingToolCall, toolObservations, toolRounds: toolObservations.length } });
  return { run, last: observationsOf(run.state).at(-1) };
}
const lookedUp = { round: 1, callId: 'call_1', name: 'lookup_order', arguments: { orderId: 'SO20261001' }, ok: true, output: {} };

describe('toolExecuteNode', () => {
  it('refuses a tool that is not on the allow-list', async () => {
    const { last } = await execute({ callId: 'c', name: 'issue_refund', arguments: { orderId: 'SO20261001' } });
    expect(last).toMatchObject({ ok: false, code: 'tool_not_allowed', error: 'tool "issue_refund" is not allowed; allowed tools: lookup_order, calculate_refund' });
  });

  it('refuses calculate_refund before a successful lookup of the same order', async () => {
    const other = { ...lookedUp, arguments: { orderId: 'SO20261002' } };
    const { last } = await execute({ callId: 'c', name: 'calculate_refund', arguments: { orderId: 'SO20261001' } }, [other]);
    expect(last).toMatchObject({ ok: false, code: 'tool_out_of_order', retryable: true });
    expect(last!.ok === false && last!.error).toContain('needs a successful lookup_order for SO20261001 first');
  });

  it('runs calculate_refund after the lookup succeeded', async () => {
    const { last } = await execute({ callId: 'c', name: 'calculate_refund', arguments: { orderId: 'SO20261001' } }, [lookedUp]);
    expect(last).toMatchObject({ ok: true, round: 2, output: { refund: 599, estimate: true } });
  });

  it('flags the same tool with the same arguments twice as a duplicate', async () => {
    const { last } = await execute({ callId: 'c', name: 'lookup_order', arguments: { orderId: 'SO20261001' } }, [lookedUp]);
    expect(last).toMatchObject({ ok: false, code: 'duplicate_tool_call', retryable: false });
  });

  it('lets a call that timed out be retried', async () => {
    const timedOut = { round: 1, callId: 'call_1', name: 'lookup_order', arguments: { orderId: 'SO20261001' }, ok: false, code: 'tool_timeout', error: 'timed out', retryable: true };
    const { last } = await execute({ callId: 'c', name: 'lookup_order', arguments: { orderId: 'SO20261001' } }, [timedOut]);
    expect(last).toMatchObject({ ok: true, output: { orderId: 'SO20261001' } });
  });

  it('turns a throwing tool and a slow tool into failed observations', async () => {
    const boom = tool({ name: 'boom', description: 'fails', parameters: z.object({}), execute: () => { throw new Error('kaput'); } });
    const slow = tool({ name: 'slow', description: 'hangs', parameters: z.object({}), execute: () => new Promise(() => {}) });
    const failing = await execute({ callId: 'c', name: 'boom', arguments: {} }, [], { tools: [boom, slow] });
    expect(failing.last).toMatchObject({ ok: false, code: 'tool_failed', error: 'tool "boom" failed: kaput' });
    const hanging = await execute({ callId: 'c', name: 'slow', arguments: {} }, [], { tools: [boom, slow], timeoutMs: 20 });
    expect(hanging.last).toMatchObject({ ok: false, code: 'tool_timeout', retryable: true, error: 'tool "slow" timed out after 20 ms; try again' });
  });

  it('refuses a negative budget when the plan node is built', () => {
    expect(() => toolPlanNode({ model: new OfflineModel(), budget: -1 })).toThrow(/budget must be a whole number of tool rounds/);
  });

  it('fails the run when routed to without a planned call', async () => {
    const { run } = await execute(null);
    expect(run.status).toBe('failed');
    expect(run.error?.message).toMatch(/tool_execute ran with no planned call/);
  });
});

describe('the tool loop with an injected model', () => {
  it('offers calculate_refund only after a successful lookup (allowedTools), and executes the calls the model plans', async () => {
    const model = new ScriptedModel([
      { expectAgent: 'orders', expectTools: ['lookup_order'], toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'SO20261001' } }] },
      { expectTools: ['lookup_order', 'calculate_refund'], toolCalls: [{ name: 'calculate_refund', arguments: { orderId: 'SO20261001' } }] },
      { text: 'You can get an estimated 599.00 CNY back.' },
    ]);
    const run = await ordersGraph({ model, clock }).run(CHECK);
    model.assertDone();
    expect(run.path).toEqual(['tool_plan', 'tool_execute', 'tool_plan', 'tool_execute', 'tool_plan']);
    expect(run.outputText).toBe('You can get an estimated 599.00 CNY back.');
    const first = model.requests[0]!.messages.at(-1)!.content;
    expect(first).toContain(`Customer message: ${CHECK}`);
    expect(first).toContain('Tool results so far:\n(none yet)');
    expect(model.requests[2]!.messages.at(-1)!.content).toContain('2. calculate_refund {"orderId":"SO20261001"} → ok');
  });

  it('refuses a tool outside the allow-list and a repeated call that the model makes', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'issue_refund', arguments: { orderId: 'SO20261001' } }] },
      { toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'SO20261001' } }] },
      { toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'SO20261001' } }] },
      { text: 'Order SO20261001 was delivered 3 days ago.' },
    ]);
    const run = await ordersGraph({ model, clock }).run(CHECK);
    model.assertDone();
    expect(observationsOf(run.state).map((o) => (o.ok ? 'ok' : o.code))).toEqual(['tool_not_allowed', 'ok', 'duplicate_tool_call']);
  });

  describe('through the fake OpenAI server', () => {
    const fake = useFakeOpenAIServer();
    let server: FakeOpenAIServer;
    beforeEach(() => {
      server = fake();
    });

    it('visits tool_execute twice and answers with the estimate', async () => {
      server.enqueue(
        { toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'SO20261001' } }] },
        { toolCalls: [{ name: 'calculate_refund', arguments: { orderId: 'SO20261001' } }] },
        { text: 'Estimated refund for SO20261001: 599.00 CNY. This is an estimate.' },
      );
      const model = new OpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
      const run = await ordersGraph({ model, clock }).run(CHECK);
      expect(run.status).toBe('completed');
      expect(run.path.filter((n) => n === 'tool_execute')).toHaveLength(2);
      expect(run.outputText).toContain('599');
      const offered = (i: number) => (server.requests[i]!.body['tools'] as Array<{ function: { name: string } }>).map((t) => t.function.name);
      expect(offered(0)).toEqual(['lookup_order']);
      expect(offered(1)).toEqual(['lookup_order', 'calculate_refund']);
    });
  });
});
