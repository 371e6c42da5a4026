import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  AgentNode,
  END,
  OfflineModel,
  OpenAIChatModel,
  StateGraph,
  tool,
  type ModelClient,
  type WorkflowEvent,
} from '../../src/index.js';
import type { FakeOpenAIServer } from '../../src/testing/index.js';
import { useFakeOpenAIServer } from '../support/useFakeOpenAIServer.js';

/** ai4j's weather cookbook: a router agent picks the route, a weather agent answers with a tool. */
function weatherGraph(model: ModelClient, cities: string[] = []) {
  const getWeather = tool({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: z.object({ city: z.string() }),
    execute: ({ city }) => {
      cities.push(city);
      return { city, sky: 'sunny', celsius: 21 };
    },
  });
  const router = new Agent({
    name: 'router',
    instructions: 'If the user asks about the weather in a city, answer exactly "weather: <city>"; otherwise answer "general".',
    model,
    offline: ({ input }) => {
      const match = /weather in ([A-Za-z ]+?)\??$/i.exec(input);
      return match ? `weather: ${match[1]}` : 'general';
    },
  });
  const weather = new Agent({
    name: 'weather',
    instructions: 'The input is "weather: <city>". Call get_weather for the city, then describe the weather in one sentence.',
    model,
    tools: [getWeather],
    offline: ({ input, toolResults }) => {
      const city = input.replace(/^weather:\s*/, '');
      const found = toolResults.find((r) => r.ok);
      if (found === undefined) return { toolCalls: [{ name: 'get_weather', arguments: { city } }] };
      const { sky, celsius } = found.output as { sky: string; celsius: number };
      return `It is ${sky} and ${celsius}°C in ${city}.`;
    },
  });
  return new StateGraph({ name: 'weather-cookbook' })
    .addNode('router', new AgentNode(router))
    .addNode('weather', new AgentNode(weather))
    .start('router')
    .addConditionalEdges('router', (_ctx, _req, result) => (result?.outputText?.startsWith('weather:') ? 'weather' : END));
}

async function collect(events: AsyncIterable<WorkflowEvent>): Promise<WorkflowEvent[]> {
  const out: WorkflowEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** Reads a field of a node event (node events carry fields the engine's union does not name). */
const field = (event: WorkflowEvent, key: string): unknown => (event as unknown as Record<string, unknown>)[key];

const deltasOf = (events: WorkflowEvent[], nodeId: string) =>
  events.filter((e) => e.type === 'model.delta' && field(e, 'nodeId') === nodeId).map((e) => field(e, 'text') as string);

const inputOf = (events: WorkflowEvent[], nodeId: string) => {
  const started = events.find((e) => e.type === 'node.started' && field(e, 'nodeId') === nodeId);
  return ((started && field(started, 'request')) as { input: unknown } | undefined)?.input;
};

describe('a router agent → weather agent graph', () => {
  it('runs offline and the weather node receives the router output', async () => {
    const cities: string[] = [];
    const run = await weatherGraph(new OfflineModel(), cities).run('What is the weather in Paris?');
    expect(run.status).toBe('completed');
    expect(run.path).toEqual(['router', 'weather']);
    expect(run.outputText).toBe('It is sunny and 21°C in Paris.');
    expect(cities).toEqual(['Paris']);
    expect(run.result?.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(run.result?.rawResponse).toMatchObject({ offline: true });
  });

  it('streams offline: token events from both nodes, and node 2 gets node 1 output', async () => {
    const events = await collect(weatherGraph(new OfflineModel()).stream('What is the weather in Paris?'));
    expect(deltasOf(events, 'router').join('')).toBe('weather: Paris');
    expect(deltasOf(events, 'weather').join('')).toBe('It is sunny and 21°C in Paris.');
    expect(inputOf(events, 'weather')).toBe('weather: Paris');
    expect(events.some((e) => e.type === 'tool.result' && field(e, 'nodeId') === 'weather')).toBe(true);
    const completed = events.at(-1)!;
    expect(completed.type).toBe('run.completed');
    expect((completed as { run: { outputText: string } }).run.outputText).toBe('It is sunny and 21°C in Paris.');
    const nodeCompleted = events.filter((e) => e.type === 'node.completed').map((e) => (field(e, 'result') as { outputText: string }).outputText);
    expect(nodeCompleted).toEqual(['weather: Paris', 'It is sunny and 21°C in Paris.']);
  });

  it('ends after the router when the question is not about weather', async () => {
    const run = await weatherGraph(new OfflineModel()).run('Tell me a joke');
    expect(run.path).toEqual(['router']);
    expect(run.outputText).toBe('general');
  });

  describe('through the fake OpenAI server', () => {
    const fake = useFakeOpenAIServer();
    let server: FakeOpenAIServer;
    beforeEach(() => {
      server = fake();
    });

    const script = () =>
      server.enqueue(
        { text: 'weather: Paris' },
        { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
        { text: 'It is sunny and 21°C in Paris.' },
      );

    it('streams token events and hands the router output to the weather agent', async () => {
      script();
      const cities: string[] = [];
      const model = new OpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
      const events = await collect(weatherGraph(model, cities).stream('What is the weather in Paris?'));
      expect(deltasOf(events, 'router').length).toBeGreaterThan(1);
      expect(deltasOf(events, 'router').join('')).toBe('weather: Paris');
      expect(deltasOf(events, 'weather').join('')).toBe('It is sunny and 21°C in Paris.');
      expect(inputOf(events, 'weather')).toBe('weather: Paris');
      expect(cities).toEqual(['Paris']);
      const weatherFirst = server.requests[1]!.body['messages'] as Array<{ role: string; content: string }>;
      expect(weatherFirst.at(-1)).toEqual({ role: 'user', content: 'weather: Paris' });
      expect(server.requests.every((r) => r.body['stream'] === true)).toBe(true);
      const run = (events.at(-1) as { run: { status: string; outputText: string; path: string[] } }).run;
      expect(run).toMatchObject({ status: 'completed', outputText: 'It is sunny and 21°C in Paris.', path: ['router', 'weather'] });
    });

    it('runs without streaming and reports usage from the server', async () => {
      script();
      const model = new OpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
      const run = await weatherGraph(model).run('What is the weather in Paris?');
      expect(run.status).toBe('completed');
      expect(run.outputText).toBe('It is sunny and 21°C in Paris.');
      expect(run.result?.usage).toEqual({ inputTokens: 20, outputTokens: 10, totalTokens: 30 });
      expect(server.requests.every((r) => r.body['stream'] === false)).toBe(true);
    });
  });
});
