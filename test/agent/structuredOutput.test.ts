import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  AgentDefinitionError,
  AgentNode,
  OfflineModel,
  OpenAIChatModel,
  StateGraph,
  tool,
  type OfflineConversation,
} from '../../src/index.js';
import { useFakeOpenAIServer } from '../support/useFakeOpenAIServer.js';

const Verdict = z.object({
  approved: z.boolean(),
  score: z.number().int().min(0).max(10),
  notes: z.array(z.string()),
});

const reviewer = (offline: Agent['offline'], extra: { maxIterations?: number } = {}) =>
  new Agent({ name: 'reviewer', instructions: 'Review the draft.', model: new OfflineModel(), outputSchema: Verdict, offline, ...extra });

describe('structured output offline', () => {
  it('parses a rule\'s { json } answer into output and keeps the JSON text as outputText', async () => {
    const agent = reviewer(() => ({ json: { approved: true, score: 8, notes: ['clear'] } }));
    const result = await agent.run('draft text');
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ approved: true, score: 8, notes: ['clear'] });
    expect(JSON.parse(result.outputText!)).toEqual(result.output);
    expectTypeOf(result.output).toEqualTypeOf<z.infer<typeof Verdict> | undefined>();
  });

  it('applies the schema\'s defaults and transforms to output', async () => {
    const schema = z.object({ city: z.string().transform((c) => c.toUpperCase()), unit: z.enum(['c', 'f']).default('c') });
    const agent = new Agent({ name: 'parser', instructions: 'i', model: new OfflineModel(), outputSchema: schema, offline: () => '{"city":"oslo"}' });
    expect((await agent.run('x')).output).toEqual({ city: 'OSLO', unit: 'c' });
  });

  it('shows the rule the response format it must meet', async () => {
    const seen: OfflineConversation[] = [];
    await reviewer((c) => {
      seen.push(c);
      return { json: { approved: false, score: 1, notes: [] } };
    }).run('x');
    expect(seen[0]!.responseFormat).toMatchObject({ type: 'json_schema', name: 'reviewer', strict: true });
    expect(seen[0]!.responseFormat!.schema).toMatchObject({ type: 'object', required: ['approved', 'score', 'notes'], additionalProperties: false });
  });

  it('gives a bad answer one repair turn naming what was wrong, and accepts the repaired answer', async () => {
    const inputs: string[] = [];
    const agent = reviewer(({ input }) => {
      inputs.push(input);
      return inputs.length === 1 ? { json: { approved: 'yes', score: 8, notes: [] } } : { json: { approved: true, score: 8, notes: [] } };
    });
    const result = await agent.run('draft');
    expect(result.status).toBe('completed');
    expect(result.steps).toBe(2);
    expect(result.output).toEqual({ approved: true, score: 8, notes: [] });
    expect(inputs[0]).toBe('draft');
    expect(inputs[1]).toContain('does not match the schema');
    expect(inputs[1]).toContain('approved');
  });

  it('fails with structured_output_invalid when the repair turn is bad too', async () => {
    const answers = ['not json at all', '{"approved": true, "score": 42, "notes": []}'];
    const agent = reviewer(({ turn }) => answers.shift() ?? `unexpected turn ${turn}`);
    const result = await agent.run('draft');
    expect(result.status).toBe('failed');
    expect(result.steps).toBe(2);
    expect(result.output).toBeUndefined();
    expect(result.error?.code).toBe('structured_output_invalid');
    expect(result.error?.message).toContain('again after its repair turn');
    expect(result.error?.message).toContain('score');
  });

  it('fails a node and its graph run with the typed error', async () => {
    const graph = new StateGraph().addNode('review', new AgentNode(reviewer(() => 'nope'))).start('review');
    const run = await graph.run('draft');
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('structured_output_invalid');
    expect(run.error?.message).toContain('not JSON');
  });

  it('fails without a repair turn when maxIterations leaves none', async () => {
    let calls = 0;
    const result = await reviewer(() => {
      calls += 1;
      return '[]';
    }, { maxIterations: 1 }).run('x');
    expect(calls).toBe(1);
    expect(result.error).toMatchObject({ code: 'structured_output_invalid' });
    expect(result.error?.message).toContain('no turn was left for a repair (maxIterations 1)');
  });

  it('checks the default rule\'s echo the same way (it is not JSON)', async () => {
    const agent = new Agent({ name: 'plain', instructions: 'i', model: new OfflineModel(), outputSchema: Verdict });
    const result = await agent.run('hello');
    expect(result.error?.code).toBe('structured_output_invalid');
  });

  it('runs tools first and checks only the final answer', async () => {
    const lookup = tool({ name: 'lookup', description: 'd', parameters: z.object({ id: z.string() }), execute: ({ id }) => ({ id, score: 7 }) });
    const agent = new Agent({
      name: 'scorer',
      instructions: 'i',
      model: new OfflineModel(),
      tools: [lookup],
      outputSchema: z.object({ score: z.number() }),
      offline: ({ toolResults }) =>
        toolResults.length === 0 ? { toolCalls: [{ name: 'lookup', arguments: { id: 'a' } }] } : { json: { score: (toolResults[0]!.output as { score: number }).score } },
    });
    const result = await agent.run('x');
    expect(result.output).toEqual({ score: 7 });
    expect(result.toolCalls).toHaveLength(1);
  });

  it('refuses at build time a schema that is not zod or cannot be JSON schema', () => {
    expect(() => new Agent({ name: 'a', instructions: 'i', model: new OfflineModel(), outputSchema: { type: 'object' } as never })).toThrow(
      /outputSchema must be a zod schema/,
    );
    expect(() => new Agent({ name: 'a', instructions: 'i', model: new OfflineModel(), outputSchema: z.object({ when: z.date() }) })).toThrow(
      AgentDefinitionError,
    );
    expect(() => new Agent({ name: 'a', instructions: 'i', model: new OfflineModel(), outputSchema: Verdict, outputStrict: 'yes' as never })).toThrow(
      /outputStrict/,
    );
  });

  it('marks a schema with optional fields as not strict unless told otherwise', () => {
    const loose = z.object({ a: z.string(), b: z.string().optional() });
    const agent = new Agent({ name: 'my agent!', instructions: 'i', model: new OfflineModel(), outputSchema: loose });
    expect(agent.responseFormat).toMatchObject({ name: 'my_agent_', strict: false });
    expect(new Agent({ name: 'x', instructions: 'i', model: new OfflineModel(), outputSchema: loose, outputStrict: true }).responseFormat?.strict).toBe(true);
    const record = new Agent({ name: 'x', instructions: 'i', model: new OfflineModel(), outputSchema: z.object({ tags: z.record(z.string(), z.number()) }) });
    expect(record.responseFormat?.strict).toBe(false);
  });
});

describe('structured output through the fake OpenAI-compatible server', () => {
  const fake = useFakeOpenAIServer();
  const model = () => new OpenAIChatModel({ model: 'gpt-test', baseURL: fake().baseURL, apiKey: 'sk-test-structured' });

  it('sends the zod schema as response_format json_schema and parses the answer', async () => {
    fake().enqueue({ text: '{"approved":true,"score":9,"notes":["tight"]}' });
    const agent = new Agent({ name: 'reviewer', instructions: 'Review.', model: model(), outputSchema: Verdict });
    const result = await agent.run('draft');
    expect(result.output).toEqual({ approved: true, score: 9, notes: ['tight'] });
    const format = fake().requests[0]!.body['response_format'] as { type: string; json_schema: { name: string; strict: boolean; schema: Record<string, unknown> } };
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.name).toBe('reviewer');
    expect(format.json_schema.strict).toBe(true);
    expect(format.json_schema.schema).toMatchObject({
      type: 'object',
      properties: { approved: { type: 'boolean' }, notes: { type: 'array', items: { type: 'string' } } },
      required: ['approved', 'score', 'notes'],
      additionalProperties: false,
    });
    expect(format.json_schema.schema['$schema']).toBeUndefined();
  });

  it('sends no response_format for an agent without outputSchema', async () => {
    fake().enqueue({ text: 'plain' });
    await new Agent({ name: 'plain', instructions: 'i', model: model() }).run('x');
    expect(fake().requests[0]!.body['response_format']).toBeUndefined();
  });

  it('repairs a bad streamed answer with a follow-up message carrying the validation error', async () => {
    fake().enqueue({ text: '{"approved":true,"score":"nine","notes":[]}' }, { text: '```json\n{"approved":true,"score":9,"notes":[]}\n```' });
    const agent = new Agent({ name: 'reviewer', instructions: 'Review.', model: model(), outputSchema: Verdict });
    let final: unknown;
    for await (const event of agent.newSession().stream('draft')) if (event.type === 'final') final = event.result;
    expect(final).toMatchObject({ status: 'completed', output: { approved: true, score: 9, notes: [] } });
    const second = fake().requests[1]!.body['messages'] as Array<{ role: string; content: string }>;
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(second[3]!.content).toContain('score');
    expect(second[3]!.content).toContain('only a JSON value');
    expect(fake().requests[1]!.body['response_format']).toEqual(fake().requests[0]!.body['response_format']);
  });

  it('ends the graph run failed with structured_output_invalid when the repair fails', async () => {
    fake().enqueue({ text: 'Sure! Here it is: approved.' }, { text: '{"approved":true}' });
    const agent = new Agent({ name: 'reviewer', instructions: 'Review.', model: model(), outputSchema: Verdict });
    const run = await new StateGraph().addNode('review', new AgentNode(agent)).start('review').run('draft');
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('structured_output_invalid');
    expect(fake().requests).toHaveLength(2);
    expect(fake().pending).toBe(0);
  });
});
