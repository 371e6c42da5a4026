import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, AgentNode, ModelError, OpenAIChatModel, StateGraph, type ModelStreamEvent } from '../../src/index.js';
import { useFakeOpenAIServer } from '../support/useFakeOpenAIServer.js';

const API_KEY = 'sk-test-timeouts-1234567890';
/** A watchdog far above the configured limits: the calls must fail long before it. */
const WATCHDOG = 15_000;

const hi = { messages: [{ role: 'user' as const, content: 'Hi' }], tools: [] };

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function rejection(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe('model call limits against the fake OpenAI-compatible server', () => {
  const fake = useFakeOpenAIServer();
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  beforeEach(() => {
    rejections.length = 0;
    process.on('unhandledRejection', onRejection);
  });
  afterEach(async () => {
    // Give any leaked rejection a few turns of the event loop to surface.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', onRejection);
    expect(rejections).toEqual([]);
  });

  const model = (options: { timeoutMs?: number; idleTimeoutMs?: number; maxRetries?: number } = {}) =>
    new OpenAIChatModel({ model: 'gpt-test', baseURL: fake().baseURL, apiKey: API_KEY, ...options });

  it('fails a response that never starts with code timeout, naming timeoutMs and its variable', { timeout: WATCHDOG }, async () => {
    fake().enqueue({ text: 'never sent', stall: 'headers' });
    const error = await rejection(model({ timeoutMs: 300 }).complete(hi));
    expect(error.code).toBe('timeout');
    expect(error.limit).toBe('timeoutMs');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('300 ms');
    expect(error.message).toContain('timeoutMs option or SWITCHBOARD_MODEL_TIMEOUT_MS');
    expect(error.message).toContain('gpt-test');
    expect(error.message).not.toContain(API_KEY);
    // The limit covers the whole call: a timed-out attempt is not retried behind the caller's back.
    expect(fake().requests).toHaveLength(1);
  });

  it('fails a non-streamed response whose body never ends', { timeout: WATCHDOG }, async () => {
    fake().enqueue({ text: 'half of this arrives', stall: 'body' });
    const error = await rejection(model({ timeoutMs: 300, idleTimeoutMs: 60_000 }).complete(hi));
    expect(error.code).toBe('timeout');
    expect(error.limit).toBe('timeoutMs');
  });

  it('fails a stream that stalls mid-way with code timeout naming idleTimeoutMs, after yielding what arrived', { timeout: WATCHDOG }, async () => {
    fake().enqueue({ text: 'one two three four five six', stall: 'body', stallAfterChunks: 3 });
    const events: ModelStreamEvent[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of model({ timeoutMs: 60_000, idleTimeoutMs: 250 }).stream(hi)) events.push(event);
      })(),
    );
    expect(error.code).toBe('timeout');
    expect(error.limit).toBe('idleTimeoutMs');
    expect(error.message).toContain('after 3 chunks');
    expect(error.message).toContain('idleTimeoutMs option or SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS');
    // The first chunk is the role header; the next two carry words.
    expect(events).toEqual([
      { type: 'delta', text: 'one ' },
      { type: 'delta', text: 'two ' },
    ]);
  });

  it('applies the whole-call limit to a stream that never sends its headers', { timeout: WATCHDOG }, async () => {
    fake().enqueue({ text: 'never', stall: 'headers' });
    const error = await rejection(collect(model({ timeoutMs: 300, idleTimeoutMs: 60_000 }).stream(hi)));
    expect(error.limit).toBe('timeoutMs');
  });

  it('counts retries inside the whole-call limit', { timeout: WATCHDOG }, async () => {
    fake().enqueue({ status: 500 }, { text: 'stalls after the retry', stall: 'headers' });
    const error = await rejection(model({ timeoutMs: 400, maxRetries: 3 }).complete(hi));
    expect(error.code).toBe('timeout');
    expect(fake().requests).toHaveLength(2);
  });

  it('answers normally on the same model after a timed-out call', { timeout: WATCHDOG }, async () => {
    // Limits generous enough for a healthy call on a loaded machine; the stall still trips the idle one.
    const m = model({ timeoutMs: 10_000, idleTimeoutMs: 1_000 });
    fake().enqueue({ text: 'lost', stall: 'body', stallAfterChunks: 2 }, { text: 'All good now.' });
    await rejection(collect(m.stream(hi)));
    const events = await collect(m.stream(hi));
    expect(events.at(-1)).toMatchObject({ type: 'response', response: { text: 'All good now.' } });
  });

  it('reports a caller abort of a stalled call as an abort, not a timeout', { timeout: WATCHDOG }, async () => {
    fake().enqueue({ text: 'never', stall: 'headers' });
    const controller = new AbortController();
    const pending = model({ timeoutMs: 60_000 }).complete({ ...hi, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(pending);
    expect(error.code).toBe('model_error');
    expect(error.message).toContain('aborted');
  });

  it('bounds retries by maxRetries, and by SWITCHBOARD_MODEL_MAX_RETRIES when no option is given', { timeout: WATCHDOG }, async () => {
    fake().enqueue({ status: 503, repeat: 10 });
    const error = await rejection(model({ maxRetries: 1 }).complete(hi));
    expect(error.code).toBe('model_retries_exhausted');
    expect(fake().requests).toHaveLength(2);

    const before = process.env['SWITCHBOARD_MODEL_MAX_RETRIES'];
    process.env['SWITCHBOARD_MODEL_MAX_RETRIES'] = '0';
    try {
      await rejection(model().complete(hi));
      expect(fake().requests).toHaveLength(3);
    } finally {
      if (before === undefined) delete process.env['SWITCHBOARD_MODEL_MAX_RETRIES'];
      else process.env['SWITCHBOARD_MODEL_MAX_RETRIES'] = before;
    }
  });

  it('defaults to a 60 s call limit, a 30 s idle limit and 2 retries', () => {
    const m = model();
    expect([m.timeoutMs, m.idleTimeoutMs]).toEqual([60_000, 30_000]);
  });

  it('ends a graph run failed with code timeout when an agent node\'s stream stalls, in run() and stream()', { timeout: WATCHDOG }, async () => {
    const agent = new Agent({ name: 'writer', instructions: 'Write.', model: model({ timeoutMs: 60_000, idleTimeoutMs: 200 }) });
    const graph = new StateGraph({ name: 'stalls' }).addNode('write', new AgentNode(agent)).start('write');
    fake().enqueue({ text: 'never', stall: 'headers' });
    const agentTimeout = new Agent({ name: 'writer', instructions: 'Write.', model: model({ timeoutMs: 300 }) });
    const run = await new StateGraph({ name: 'hangs' }).addNode('write', new AgentNode(agentTimeout)).start('write').run('go');
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'timeout' });

    fake().enqueue({ text: 'a b c d e f', stall: 'body', stallAfterChunks: 3 });
    let streamed: unknown;
    for await (const event of graph.stream('go')) if (event.type === 'run.completed') streamed = event.run;
    expect(streamed).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
    expect(JSON.stringify(streamed)).toContain('idleTimeoutMs');
  });
});
