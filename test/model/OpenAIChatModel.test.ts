import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, ModelError, OpenAIChatModel, tool, type AgentEvent } from '../../src/index.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../../src/testing/index.js';

const API_KEY = 'sk-test-do-not-leak-1234567890';

const weatherParams = z.object({
  city: z.string().describe('The city to look up'),
  unit: z.enum(['c', 'f']).default('c'),
});

function weatherTool(calls: unknown[] = []) {
  return tool({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: weatherParams,
    execute: (args) => {
      calls.push(args);
      return { city: args.city, sky: 'sunny', degrees: 21, unit: args.unit };
    },
  });
}

describe('OpenAIChatModel against a fake OpenAI-compatible server', () => {
  let server: FakeOpenAIServer;
  let model: OpenAIChatModel;

  beforeEach(async () => {
    server = await startFakeOpenAIServer();
    model = new OpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: API_KEY, maxRetries: 2 });
  });
  afterEach(async () => {
    await server.close();
  });

  it('returns a plain answer with its usage', async () => {
    server.enqueue({ text: 'Hello there.', usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
    const response = await model.complete({ messages: [{ role: 'user', content: 'Hi' }], tools: [] });
    expect(response.text).toBe('Hello there.');
    expect(response.toolCalls).toEqual([]);
    expect(response.usage).toEqual({ inputTokens: 7, outputTokens: 3, totalTokens: 10 });
    expect(server.requests[0]!.body['model']).toBe('gpt-test');
    expect(server.requests[0]!.body['tools']).toBeUndefined();
    expect(server.requests[0]!.authorized).toBe(true);
  });

  it('runs a tool call, feeds the tool result back and returns the answer', async () => {
    server.enqueue({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'Sunny, 21°C in Paris.' });
    const calls: unknown[] = [];
    const agent = new Agent({ name: 'weather', instructions: 'Answer weather questions.', model, tools: [weatherTool(calls)] });
    const result = await agent.newSession().run('Weather in Paris?');
    expect(result.status).toBe('completed');
    expect(result.outputText).toBe('Sunny, 21°C in Paris.');
    expect(calls).toEqual([{ city: 'Paris', unit: 'c' }]);
    expect(result.toolResults).toEqual([
      { callId: 'call_1', name: 'get_weather', ok: true, output: { city: 'Paris', sky: 'sunny', degrees: 21, unit: 'c' } },
    ]);
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 10, totalTokens: 30 });
    const second = server.requests[1]!.body['messages'] as Array<Record<string, unknown>>;
    expect(second.map((m) => m['role'])).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(second[2]!['tool_calls']).toEqual([{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    expect(second[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(JSON.parse(second[3]!['content'] as string)).toEqual({ ok: true, output: { city: 'Paris', sky: 'sunny', degrees: 21, unit: 'c' } });
  });

  it('streams the answer token by token', async () => {
    server.enqueue({ text: 'It is sunny in Paris today.' });
    const agent = new Agent({ name: 'weather', instructions: 'Answer.', model });
    const events: AgentEvent[] = [];
    for await (const event of agent.newSession().stream('Weather?')) events.push(event);
    const deltas = events.flatMap((e) => (e.type === 'model.delta' ? [e.text] : []));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe('It is sunny in Paris today.');
    const last = events.at(-1)!;
    expect(last.type).toBe('final');
    expect(last.type === 'final' && last.result.outputText).toBe('It is sunny in Paris today.');
    expect(server.requests[0]!.body['stream']).toBe(true);
    expect(server.requests[0]!.body['stream_options']).toEqual({ include_usage: true });
    expect(last.type === 'final' && last.result.usage.totalTokens).toBe(15);
  });

  it('assembles streamed tool-call deltas into whole calls', async () => {
    server.enqueue(
      {
        argumentChunkSize: 3,
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris', unit: 'f' } },
          { id: 'call_b', name: 'get_weather', arguments: { city: 'Oslo' } },
        ],
      },
      { text: 'Paris is warm, Oslo is cold.' },
    );
    const calls: unknown[] = [];
    const agent = new Agent({ name: 'weather', instructions: 'Answer.', model, tools: [weatherTool(calls)] });
    const events: AgentEvent[] = [];
    for await (const event of agent.newSession().stream('Paris and Oslo?')) events.push(event);
    expect(calls).toEqual([
      { city: 'Paris', unit: 'f' },
      { city: 'Oslo', unit: 'c' },
    ]);
    const response = events.find((e) => e.type === 'model.response');
    expect(response?.type === 'model.response' && response.toolCalls).toEqual([
      { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris","unit":"f"}' },
      { id: 'call_b', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
    expect(events.at(-1)?.type === 'final' && (events.at(-1) as { result: { outputText: string } }).result.outputText).toBe(
      'Paris is warm, Oslo is cold.',
    );
  });

  it('retries a 429 through the SDK and then succeeds', async () => {
    server.enqueue({ status: 429, message: 'slow down' }, { text: 'Done.' });
    const response = await model.complete({ messages: [{ role: 'user', content: 'Hi' }], tools: [] });
    expect(response.text).toBe('Done.');
    expect(server.requests).toHaveLength(2);
  });

  it('throws a typed ModelError when 500s outlast the retries, without the key', async () => {
    server.enqueue({ status: 500, message: `internal error for key ${API_KEY}`, repeat: 3 });
    const error = await model.complete({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    const modelError = error as ModelError;
    expect(modelError.code).toBe('model_retries_exhausted');
    expect(modelError.retryable).toBe(true);
    expect(modelError.status).toBe(500);
    expect(modelError.attempts).toBe(3);
    expect(modelError.message).toContain('gpt-test');
    expect(modelError.message).toContain('maxRetries');
    expect(modelError.message).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(3);
    expect(server.pending).toBe(0);
  });

  it('reports rate limiting that outlasts the retries as rate_limited', async () => {
    server.enqueue({ status: 429, repeat: 3 });
    const error = (await model.complete({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }).catch((e: unknown) => e)) as ModelError;
    expect(error.code).toBe('rate_limited');
    expect(error.message).toContain('429');
    expect(server.requests).toHaveLength(3);
  });

  it('names the credentials, never the key, when the server answers 401', async () => {
    server.enqueue({ status: 401, message: `Incorrect API key provided: ${API_KEY}` });
    const error = (await model.complete({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }).catch((e: unknown) => e)) as ModelError;
    expect(error.code).toBe('model_error');
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(error.message).not.toContain(API_KEY);
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('answers malformed tool-call arguments with an error observation and one repair turn', async () => {
    server.enqueue(
      { toolCalls: [{ id: 'call_bad', name: 'get_weather', arguments: '{"city": "Par' }] },
      { toolCalls: [{ id: 'call_good', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { text: 'Sunny in Paris.' },
    );
    const calls: unknown[] = [];
    const agent = new Agent({ name: 'weather', instructions: 'Answer.', model, tools: [weatherTool(calls)] });
    const result = await agent.newSession().run('Weather in Paris?');
    expect(result.status).toBe('completed');
    expect(result.outputText).toBe('Sunny in Paris.');
    expect(calls).toEqual([{ city: 'Paris', unit: 'c' }]);
    expect(result.toolResults[0]).toMatchObject({ callId: 'call_bad', ok: false, code: 'invalid_tool_arguments', retryable: true });
    const repairRequest = server.requests[1]!.body['messages'] as Array<Record<string, unknown>>;
    const observation = JSON.parse(repairRequest.at(-1)!['content'] as string) as { ok: boolean; error: string };
    expect(observation.ok).toBe(false);
    expect(observation.error).toContain('not valid JSON');
  });

  it('ends with status failed when the repair turn is malformed too', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'get_weather', arguments: '{city: Paris}' }] },
      { toolCalls: [{ name: 'get_weather', arguments: '{"city":' }] },
    );
    const agent = new Agent({ name: 'weather', instructions: 'Answer.', model, tools: [weatherTool()] });
    const result = await agent.newSession().run('Weather in Paris?');
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('invalid_tool_arguments');
    expect(result.steps).toBe(2);
    expect(server.unexpected).toBe(0);
  });

  it("sends each tool's JSON schema derived from its zod parameters", async () => {
    server.enqueue({ text: 'ok' });
    const agent = new Agent({ name: 'weather', instructions: 'Answer.', model, tools: [weatherTool()] });
    await agent.newSession().run('Weather?');
    const { $schema: _drop, ...expected } = z.toJSONSchema(weatherParams, { io: 'input' }) as Record<string, unknown>;
    expect(server.requests[0]!.body['tools']).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: expected } },
    ]);
    expect(expected['properties']).toMatchObject({ city: { type: 'string', description: 'The city to look up' }, unit: { enum: ['c', 'f'] } });
    expect(server.requests[0]!.body['tool_choice']).toBe('auto');
  });

  it('leaves out stream_options when streamUsage is off', async () => {
    server.enqueue({ text: 'plain stream' });
    const quiet = new OpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: API_KEY, streamUsage: false });
    const agent = new Agent({ name: 'a', instructions: 'i', model: quiet });
    const events: AgentEvent[] = [];
    for await (const event of agent.newSession().stream('hi')) events.push(event);
    expect(server.requests[0]!.body['stream_options']).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'final', result: { outputText: 'plain stream', usage: { totalTokens: 0 } } });
  });

  it('works with an injected openai client', async () => {
    const { default: OpenAI } = await import('openai');
    const client = new OpenAI({ apiKey: API_KEY, baseURL: server.baseURL, maxRetries: 0 });
    const injected = new OpenAIChatModel({ client, model: 'gpt-injected' });
    server.enqueue({ text: 'injected' });
    const response = await injected.complete({ messages: [{ role: 'user', content: 'Hi' }], tools: [] });
    expect(response.text).toBe('injected');
    expect(server.requests[0]!.body['model']).toBe('gpt-injected');
  });

  it('tells the errors of an injected client apart, naming its server', async () => {
    const { default: OpenAI } = await import('openai');
    const client = new OpenAI({ apiKey: API_KEY, baseURL: server.baseURL, maxRetries: 1 });
    server.enqueue({ status: 401, message: 'bad key' });
    const error = (await new OpenAIChatModel({ client, model: 'gpt-injected' }).complete({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }).catch((e: unknown) => e)) as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'model_error', status: 401, fault: 'user' });
    expect(error.message).toContain(`at ${server.baseURL.replace(/\/$/, '')} rejected the credentials`);
  });

  it('calls the server of OPENAI_BASE_URL when no baseURL is given, and names it in errors', async () => {
    const saved = process.env['OPENAI_BASE_URL'];
    process.env['OPENAI_BASE_URL'] = ` ${server.baseURL} `;
    try {
      const fromEnv = new OpenAIChatModel({ model: 'gpt-env', apiKey: API_KEY, maxRetries: 0 });
      server.enqueue({ text: 'from the environment' }, { status: 503, message: 'down' });
      expect((await fromEnv.complete({ messages: [{ role: 'user', content: 'Hi' }], tools: [] })).text).toBe('from the environment');
      const error = (await fromEnv.complete({ messages: [{ role: 'user', content: 'Hi' }], tools: [] }).catch((e: unknown) => e)) as ModelError;
      expect(error).toMatchObject({ code: 'model_retries_exhausted', status: 503 });
      expect(error.message).toContain(`model "gpt-env" at ${server.baseURL.replace(/\/$/, '')} kept failing with HTTP 503`);
      expect(server.requests.map((r) => r.body['model'])).toEqual(['gpt-env', 'gpt-env']);
    } finally {
      if (saved === undefined) delete process.env['OPENAI_BASE_URL'];
      else process.env['OPENAI_BASE_URL'] = saved;
    }
  });
});

describe('OpenAIChatModel options', () => {
  it('refuses to start without an API key and names the ways to give one', () => {
    const saved = process.env['OPENAI_API_KEY'];
    delete process.env['OPENAI_API_KEY'];
    try {
      expect(() => new OpenAIChatModel({ model: 'gpt-test' })).toThrow(/set OPENAI_API_KEY, pass apiKey/);
    } finally {
      if (saved !== undefined) process.env['OPENAI_API_KEY'] = saved;
    }
  });

  it('rejects a blank model name with a message that says what to pass', () => {
    expect(() => new OpenAIChatModel({ model: ' ', apiKey: 'x' })).toThrow(/model must name the model/);
  });

  it('rejects a client that is not an openai client, saying what to pass', () => {
    for (const client of [{}, 'sk-key', { chat: { completions: {} }, baseURL: 'http://x', maxRetries: 0 }]) {
      expect(() => new OpenAIChatModel({ model: 'm', client: client as never })).toThrow(/client: client must be a client of the openai package/);
    }
  });

  it('rejects a baseURL that is not a URL', () => {
    expect(() => new OpenAIChatModel({ model: 'm', apiKey: 'x', baseURL: 'localhost:11434' })).toThrow(/baseURL: baseURL must be an absolute http\(s\) URL/);
  });
});
