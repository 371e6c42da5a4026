import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, AgentDefinitionError, OfflineModel, tool, type ModelStreamEvent } from '../../src/index.js';

describe('OfflineModel', () => {
  it("answers from the agent's offline rule, reports zero usage and says it is offline", async () => {
    const agent = new Agent({ name: 'greeter', instructions: 'Greet.', model: new OfflineModel(), offline: ({ input }) => `Hello, ${input}!` });
    const result = await agent.newSession().run('Ada');
    expect(result.outputText).toBe('Hello, Ada!');
    expect(result.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(result.rawResponse).toMatchObject({ offline: true, model: 'offline', rule: 'agent' });
  });

  it('is deterministic: the same conversation gets the same answer', async () => {
    const model = new OfflineModel();
    const request = { messages: [{ role: 'user' as const, content: 'ping' }], tools: [], agent: 'echo' };
    expect(await model.complete(request)).toEqual(await model.complete(request));
  });

  it('calls tools from a rule and sees their results on the next turn', async () => {
    const add = tool({ name: 'add', description: 'Adds', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b });
    const agent = new Agent({
      name: 'calc',
      instructions: 'Add.',
      model: new OfflineModel(),
      tools: [add],
      offline: ({ toolResults, allowedTools, turn }) =>
        toolResults.length === 0 ? { toolCalls: [{ name: allowedTools[0]!, arguments: { a: 2, b: 3 } }] } : `turn ${turn}: ${String(toolResults[0]!.output)}`,
    });
    const result = await agent.newSession().run('2 + 3');
    expect(result.outputText).toBe('turn 1: 5');
    expect(result.toolCalls).toEqual([{ id: 'call_offline_1_1', name: 'add', arguments: { a: 2, b: 3 }, iteration: 1 }]);
  });

  it('uses rules given by agent name, then a default that echoes and summarizes tool results', async () => {
    const model = new OfflineModel({ rules: { named: () => 'from the rules' } });
    expect((await new Agent({ name: 'named', instructions: 'i', model }).run('x')).outputText).toBe('from the rules');
    expect((await new Agent({ name: 'plain', instructions: 'i', model }).run('hello')).outputText).toBe('[offline plain] hello');
    const echo = tool({ name: 'echo', description: 'Echo', parameters: z.object({}), execute: () => ({ said: 'hi' }) });
    const twoStep = new Agent({
      name: 'two-step',
      instructions: 'i',
      model,
      tools: [echo],
      offline: ({ toolResults }) => (toolResults.length === 0 ? { toolCalls: [{ name: 'echo' }] } : null),
    });
    expect((await twoStep.run('go')).outputText).toBe('echo: {"said":"hi"}');
  });

  it('streams the answer word by word', async () => {
    const model = new OfflineModel();
    const events: ModelStreamEvent[] = [];
    for await (const event of model.stream({ messages: [{ role: 'user', content: 'one two three' }], tools: [], offline: ({ input }) => input })) {
      events.push(event);
    }
    expect(events.filter((e) => e.type === 'delta').map((e) => (e.type === 'delta' ? e.text : ''))).toEqual(['one ', 'two ', 'three']);
    expect(events.at(-1)).toMatchObject({ type: 'response', response: { text: 'one two three' } });
  });

  it('rejects a rule reply that is neither text nor tool calls, saying what to return', async () => {
    const agent = new Agent({ name: 'bad', instructions: 'i', model: new OfflineModel(), offline: () => ({ answer: 42 }) as never });
    await expect(agent.run('x')).rejects.toThrow(AgentDefinitionError);
    await expect(agent.run('x')).rejects.toThrow(/return a string, \{ text \}, \{ toolCalls/);
  });
});
