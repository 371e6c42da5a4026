/**
 * ai4j's weather cookbook as a Switchboard graph: a router agent decides whether the question is
 * about the weather and names the city; a weather agent looks it up with a tool and answers.
 *
 * Offline by default (each agent's `offline` rule stands in for the model). With OPENAI_API_KEY set
 * (and optionally OPENAI_BASE_URL, SWITCHBOARD_MODEL) the same graph runs against that endpoint.
 *
 *   npx tsx examples/04-weather-workflow.ts "What is the weather in Paris?"
 */
import { z } from 'zod';
import { Agent, AgentNode, END, StateGraph, createModelFromEnv, tool } from '../src/index.js';

/** A stand-in weather service, so the example needs no weather API. */
const FORECASTS: Record<string, { sky: string; celsius: number }> = {
  paris: { sky: 'sunny', celsius: 21 },
  oslo: { sky: 'rainy', celsius: 9 },
  tokyo: { sky: 'cloudy', celsius: 17 },
};

const getWeather = tool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string().describe('City name, e.g. "Paris"') }),
  execute: ({ city }) => {
    const forecast = FORECASTS[city.trim().toLowerCase()];
    return forecast === undefined ? { city, known: false } : { city, known: true, ...forecast };
  },
});

const ROUTE = /weather:\s*([^\n.]+)/i;
const model = createModelFromEnv();

const router = new Agent({
  name: 'router',
  instructions:
    'You route questions. If the user asks about the weather in a city, answer exactly "weather: <city>" ' +
    'and nothing else. Otherwise answer exactly "general".',
  model,
  offline: ({ input }) => {
    const city = /weather (?:in|for) ([A-Za-z ]+?)\??$/i.exec(input)?.[1];
    return city === undefined ? 'general' : `weather: ${city}`;
  },
});

const weather = new Agent({
  name: 'weather',
  instructions: 'The input is "weather: <city>". Call get_weather for that city, then describe the weather in one short sentence.',
  model,
  tools: [getWeather],
  offline: ({ input, toolResults }) => {
    const city = ROUTE.exec(input)?.[1]?.trim() ?? input;
    const result = toolResults.find((r) => r.ok)?.output as { known: boolean; sky?: string; celsius?: number } | undefined;
    if (result === undefined) return { toolCalls: [{ name: 'get_weather', arguments: { city } }] };
    return result.known ? `It is ${result.sky} and ${result.celsius}°C in ${city}.` : `I have no weather for ${city}.`;
  },
});

const graph = new StateGraph({ name: 'weather-workflow' })
  .addNode('router', new AgentNode(router))
  .addNode('weather', new AgentNode(weather))
  .start('router')
  .addConditionalEdges('router', (_ctx, _request, result) => (ROUTE.test(result?.outputText ?? '') ? 'weather' : END));

const question = process.argv[2] ?? 'What is the weather in Paris?';
console.log(`model: ${model.name}`);
console.log(`question: ${question}`);
const run = await graph.run(question);
if (run.status !== 'completed') {
  console.error(`run ${run.status}: ${run.error?.message ?? 'no answer'}`);
  process.exitCode = 1;
} else {
  console.log(`path: ${run.path.join(' → ')}`);
  console.log(`answer: ${run.outputText}`);
}
