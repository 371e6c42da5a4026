import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, AgentDefinitionError, AgentRunError, ToolError, tool, type AgentEvent, type AgentTurnState } from '../../src/index.js';
import { ScriptedModel, ScriptMismatchError } from '../../src/testing/index.js';

const OrderArgs = z.object({ orderId: z.string() });

function refundTools(log: string[] = []) {
  const lookupOrder = tool({
    name: 'lookup_order',
    description: 'Find an order by id',
    parameters: OrderArgs,
    execute: ({ orderId }) => {
      log.push(`lookup:${orderId}`);
      if (orderId !== '42') throw new ToolError(`order ${orderId} does not exist`);
      return { orderId, total: 30, currency: 'EUR' };
    },
  });
  const calculateRefund = tool({
    name: 'calculate_refund',
    description: 'Compute the refund for a looked-up order',
    parameters: OrderArgs,
    execute: ({ orderId }) => {
      log.push(`refund:${orderId}`);
      return { orderId, refund: 30 };
    },
  });
  return [lookupOrder, calculateRefund];
}

/** `calculate_refund` only after `lookup_order` has succeeded. */
const stageGate = (state: AgentTurnState) =>
  state.succeeded.includes('lookup_order') ? ['lookup_order', 'calculate_refund'] : ['lookup_order'];

describe('the agent loop with a ScriptedModel', () => {
  it('exposes calculate_refund only after lookup_order succeeded', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      { expectTools: ['lookup_order'], toolCalls: [{ name: 'calculate_refund', arguments: { orderId: '42' } }] },
      { expectTools: ['lookup_order'], toolCalls: [{ name: 'lookup_order', arguments: { orderId: '7' } }] },
      { expectTools: ['lookup_order'], toolCalls: [{ name: 'lookup_order', arguments: { orderId: '42' } }] },
      { expectTools: ['lookup_order', 'calculate_refund'], toolCalls: [{ name: 'calculate_refund', arguments: { orderId: '42' } }] },
      { text: 'Order 42 is refunded 30 EUR.' },
    ]);
    const agent = new Agent({ name: 'refunds', instructions: 'Handle refunds.', model, tools: refundTools(log), allowedTools: stageGate });
    const result = await agent.newSession().run('Refund order 42');
    model.assertDone();
    expect(result.status).toBe('completed');
    expect(result.outputText).toBe('Order 42 is refunded 30 EUR.');
    expect(log).toEqual(['lookup:7', 'lookup:42', 'refund:42']);
    expect(result.toolResults.map((r) => [r.name, r.ok, r.ok ? null : r.code])).toEqual([
      ['calculate_refund', false, 'tool_not_allowed'],
      ['lookup_order', false, 'tool_failed'],
      ['lookup_order', true, null],
      ['calculate_refund', true, null],
    ]);
    const gated = result.toolResults[0]!;
    expect(!gated.ok && gated.error).toContain('not available on this turn');
    expect(result.steps).toBe(5);
  });

  it('turns a tool that times out into an observation and lets the model go on', async () => {
    let sawAbort = false;
    const slow = tool({
      name: 'slow_lookup',
      description: 'A lookup that never answers',
      parameters: z.object({}),
      timeoutMs: 20,
      execute: (_args, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            sawAbort = true;
            resolve('too late');
          });
        }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'slow_lookup' }] }, { text: 'The lookup service is slow; try again later.' }]);
    const agent = new Agent({ name: 'a', instructions: 'i', model, tools: [slow] });
    const result = await agent.newSession().run('go');
    model.assertDone();
    expect(result.status).toBe('completed');
    expect(result.toolResults[0]).toMatchObject({ ok: false, code: 'tool_timeout', retryable: true });
    expect(sawAbort).toBe(true);
    const observation = model.requests[1]!.messages.at(-1)!;
    expect(observation.role).toBe('tool');
    expect(JSON.parse(observation.content!)).toEqual({ ok: false, error: 'tool "slow_lookup" timed out after 20 ms; try again, or answer without it', retryable: true });
  });

  it('stops at maxIterations with status max-iterations and says so', async () => {
    const ping = tool({ name: 'ping', description: 'Ping', parameters: z.object({}), execute: () => 'pong' });
    const model = new ScriptedModel([
      { text: 'pinging', toolCalls: [{ name: 'ping' }] },
      { toolCalls: [{ name: 'ping' }] },
      { toolCalls: [{ name: 'ping' }] },
    ]);
    const agent = new Agent({ name: 'looper', instructions: 'i', model, tools: [ping], maxIterations: 3 });
    const result = await agent.newSession().run('go');
    model.assertDone();
    expect(result.status).toBe('max-iterations');
    expect(result.steps).toBe(3);
    expect(result.toolResults).toHaveLength(3);
    expect(result.error?.code).toBe('max_iterations');
    expect(result.error?.message).toContain('maxIterations (3)');
  });

  it('stops when the signal aborts between tool calls and model turns', async () => {
    const controller = new AbortController();
    const stop = tool({
      name: 'stop_here',
      description: 'Aborts the run',
      parameters: z.object({}),
      execute: () => {
        controller.abort();
        return 'stopping';
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'stop_here' }] }, { text: 'never played' }]);
    const agent = new Agent({ name: 'a', instructions: 'i', model, tools: [stop] });
    const result = await agent.newSession().run('go', { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(model.requests).toHaveLength(1);
    expect(model.remaining).toBe(1);
  });

  it('stops when the signal aborts while the model is answering', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([{ before: () => controller.abort(), hang: true }]);
    const agent = new Agent({ name: 'a', instructions: 'i', model });
    const events: AgentEvent[] = [];
    for await (const event of agent.newSession().stream('go', { signal: controller.signal })) events.push(event);
    const last = events.at(-1)!;
    expect(last.type === 'final' && last.result.status).toBe('cancelled');
    expect(last.type === 'final' && last.result.steps).toBe(0);
  });

  it('answers every tool call of a turn even when the run is aborted in the middle', async () => {
    const controller = new AbortController();
    const first = tool({ name: 'first', description: 'd', parameters: z.object({}), execute: () => controller.abort() });
    let secondRan = false;
    const second = tool({ name: 'second', description: 'd', parameters: z.object({}), execute: () => (secondRan = true) });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'first' }, { name: 'second' }] }]);
    const session = new Agent({ name: 'a', instructions: 'i', model, tools: [first, second] }).newSession();
    const result = await session.run('go', { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(result.toolResults.map((r) => (r.ok ? 'ok' : r.code))).toEqual(['tool_failed', 'run_cancelled']);
    expect(secondRan).toBe(false);
    expect(session.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
  });

  it('feeds invalid arguments, unknown tools and throwing tools back as observations', async () => {
    const boom = tool({
      name: 'boom',
      description: 'Fails',
      parameters: z.object({ n: z.number().int() }),
      execute: () => {
        throw new ToolError('the backend is down', { retryable: true });
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'boom', arguments: { n: 'one' } }, { name: 'nope' }, { name: 'boom', arguments: { n: 1 } }] },
      { text: 'Sorry, the backend is down.' },
    ]);
    const agent = new Agent({ name: 'a', instructions: 'i', model, tools: [boom] });
    const result = await agent.newSession().run('go');
    expect(result.status).toBe('completed');
    const [invalid, unknown, thrown] = result.toolResults;
    expect(invalid).toMatchObject({ ok: false, code: 'invalid_tool_arguments', retryable: true });
    expect(!invalid!.ok && invalid!.error).toContain('n:');
    expect(unknown).toMatchObject({ ok: false, code: 'tool_not_allowed' });
    expect(!unknown!.ok && unknown!.error).toContain('there is no tool "nope"');
    expect(thrown).toMatchObject({ ok: false, code: 'tool_failed', retryable: true, error: 'the backend is down' });
  });

  it('keeps memory within a session and not across sessions', async () => {
    const model = new ScriptedModel([{ text: 'one' }, { text: 'two' }, { text: 'fresh' }]);
    const agent = new Agent({ name: 'a', instructions: 'Be brief.', model });
    const session = agent.newSession();
    await session.run('first');
    await session.run('second');
    await agent.newSession().run('third');
    expect(model.requests.map((r) => r.messages.length)).toEqual([2, 4, 2]);
    expect(session.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
  });

  it('streams events in loop order and ends with final carrying the result', async () => {
    const echo = tool({ name: 'echo', description: 'Echo', parameters: z.object({ text: z.string() }), execute: ({ text }) => text });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'echo', arguments: { text: 'hi' } }] }, { text: 'said hi', chunks: ['said', ' hi'] }]);
    const agent = new Agent({ name: 'echoer', instructions: 'i', model, tools: [echo] });
    const types: string[] = [];
    let final: AgentEvent | undefined;
    for await (const event of agent.newSession().stream('go')) {
      types.push(event.type);
      expect(event.agent).toBe('echoer');
      final = event;
    }
    expect(types).toEqual(['model.request', 'model.response', 'tool.call', 'tool.result', 'model.request', 'model.delta', 'model.delta', 'model.response', 'final']);
    expect(final?.type === 'final' && final.result).toMatchObject({ status: 'completed', outputText: 'said hi', steps: 2 });
  });

  it('rejects a second run while the session is busy', async () => {
    const model = new ScriptedModel([{ text: 'a' }, { text: 'b' }]);
    const session = new Agent({ name: 'a', instructions: 'i', model }).newSession();
    const first = session.run('one');
    const second = session.run('two');
    await expect(second).rejects.toBeInstanceOf(AgentRunError);
    await expect(second).rejects.toMatchObject({ code: 'session_busy' });
    await expect(first).resolves.toMatchObject({ outputText: 'a' });
  });

  it('rejects when the model fails, so the failure is not mistaken for an answer', async () => {
    const model = new ScriptedModel([]);
    const agent = new Agent({ name: 'a', instructions: 'i', model });
    await expect(agent.newSession().run('go')).rejects.toBeInstanceOf(ScriptMismatchError);
  });

  it('rejects an allowedTools callback that names a tool the agent does not have', async () => {
    const model = new ScriptedModel([{ text: 'x' }]);
    const agent = new Agent({ name: 'a', instructions: 'i', model, tools: refundTools(), allowedTools: () => ['refund_everything'] });
    await expect(agent.newSession().run('go')).rejects.toThrow(AgentDefinitionError);
    await expect(agent.newSession().run('go')).rejects.toThrow(/names "refund_everything", which is not one of its tools/);
  });
});
