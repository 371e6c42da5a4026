import { describe, expect, it } from 'vitest';
import { Agent, AgentDefinitionError, subagentTool, type AgentEvent, type HandoffCompletedEvent } from '../../src/index.js';
import { ScriptedModel, type ScriptedTurn } from '../../src/testing/index.js';

const handoffTo = (tool: string, task = 'Weather in Paris?', context?: string) => ({
  toolCalls: [{ name: tool, arguments: context === undefined ? { task } : { task, context } }],
});

/** A coordinator that hands one task off and then answers. */
function coordinatorWith(tools: ReturnType<typeof subagentTool>[], turns: ScriptedTurn[]) {
  const model = new ScriptedModel(turns);
  return { model, agent: new Agent({ name: 'coordinator', instructions: 'Delegate.', model, tools }) };
}

async function streamAll(agent: Agent, input: string) {
  const events: AgentEvent[] = [];
  for await (const event of agent.newSession().stream(input)) events.push(event);
  const final = events.at(-1)!;
  if (final.type !== 'final') throw new Error('stream did not end with final');
  return { events, result: final.result };
}

const handoffEvents = (events: AgentEvent[]) => events.filter((e) => e.type === 'handoff.started' || e.type === 'handoff.completed');

describe('subagentTool and its handoff policy', () => {
  it('hands a task with its context to a fresh subagent session and returns its answer', async () => {
    const weatherModel = new ScriptedModel([{ text: 'Sunny, 21°C.' }, { text: 'Rainy, 12°C.' }]);
    const weather = new Agent({ name: 'Weather Agent', instructions: 'Weather questions.', model: weatherModel });
    const handoff = subagentTool(weather);
    expect(handoff.name).toBe('subagent_weather_agent');
    const { agent } = coordinatorWith([handoff], [
      handoffTo('subagent_weather_agent', 'Weather in Paris?', 'The user is outdoors.'),
      handoffTo('subagent_weather_agent', 'Weather in Oslo?'),
      { text: 'Paris sunny, Oslo rainy.' },
    ]);
    const { events, result } = await streamAll(agent, 'Paris and Oslo?');
    expect(result.toolResults.map((r) => r.ok && r.output)).toEqual([
      { subagent: 'Weather Agent', outputText: 'Sunny, 21°C.', attempts: 1 },
      { subagent: 'Weather Agent', outputText: 'Rainy, 12°C.', attempts: 1 },
    ]);
    expect(weatherModel.requests.map((r) => r.messages.length)).toEqual([2, 2]);
    expect(weatherModel.requests[0]!.messages[1]!.content).toBe('Weather in Paris?\n\nContext:\nThe user is outdoors.');
    expect(handoffEvents(events).map((e) => [e.type, e.status, e.depth])).toEqual([
      ['handoff.started', 'started', 1],
      ['handoff.completed', 'completed', 1],
      ['handoff.started', 'started', 1],
      ['handoff.completed', 'completed', 1],
    ]);
  });

  it('keeps one subagent session across calls with session: shared', async () => {
    const weatherModel = new ScriptedModel([{ text: 'a' }, { text: 'b' }]);
    const weather = new Agent({ name: 'weather', instructions: 'w', model: weatherModel });
    const { agent } = coordinatorWith([subagentTool(weather, { session: 'shared' })], [
      handoffTo('subagent_weather'),
      handoffTo('subagent_weather'),
      { text: 'done' },
    ]);
    await agent.newSession().run('go');
    expect(weatherModel.requests.map((r) => r.messages.length)).toEqual([2, 4]);
  });

  it('denies a tool outside the allow-list with a message that names allowedTools', async () => {
    const weatherModel = new ScriptedModel([]);
    const weather = new Agent({ name: 'weather', instructions: 'w', model: weatherModel });
    const { model, agent } = coordinatorWith([subagentTool(weather, { policy: { allowedTools: ['subagent_billing'] } })], [
      handoffTo('subagent_weather'),
      { text: 'I cannot ask the weather agent.' },
    ]);
    const { events, result } = await streamAll(agent, 'go');
    model.assertDone();
    weatherModel.assertDone();
    const denied = result.toolResults[0]!;
    expect(denied).toMatchObject({ ok: false, code: 'handoff_denied', retryable: false });
    expect(!denied.ok && denied.error).toContain('allowedTools');
    const completed = handoffEvents(events).at(-1) as HandoffCompletedEvent;
    expect(completed).toMatchObject({ status: 'denied', attempts: 0 });
    expect(completed.error).toContain('allowedTools');
  });

  it('answers a denied handoff with the fallback when onDenied is fallback', async () => {
    const weather = new Agent({ name: 'weather', instructions: 'w', model: new ScriptedModel([]) });
    const { agent } = coordinatorWith([subagentTool(weather, { policy: { deniedTools: ['subagent_weather'], onDenied: 'fallback' } })], [
      handoffTo('subagent_weather'),
      { text: 'Answering myself.' },
    ]);
    const { events, result } = await streamAll(agent, 'go');
    const fallback = result.toolResults[0]!;
    expect(fallback.ok).toBe(true);
    expect(fallback.ok && fallback.output).toMatchObject({ status: 'fallback', subagent: 'weather', outputText: null });
    expect(JSON.stringify(fallback)).toContain('deniedTools');
    expect((handoffEvents(events).at(-1) as HandoffCompletedEvent).status).toBe('fallback');
  });

  it('recovers with one retry when the first attempt fails', async () => {
    const weatherModel = new ScriptedModel([{ error: new Error('flaky backend') }, { text: 'Sunny.' }]);
    const weather = new Agent({ name: 'weather', instructions: 'w', model: weatherModel });
    const { agent } = coordinatorWith([subagentTool(weather, { policy: { maxRetries: 1 } })], [handoffTo('subagent_weather'), { text: 'Sunny it is.' }]);
    const { events, result } = await streamAll(agent, 'go');
    weatherModel.assertDone();
    expect(result.toolResults[0]).toMatchObject({ ok: true, output: { outputText: 'Sunny.', attempts: 2 } });
    expect(handoffEvents(events).at(-1)).toMatchObject({ status: 'completed', attempts: 2 });
  });

  it('fails the tool call when every attempt fails and onError is fail', async () => {
    const weather = new Agent({ name: 'weather', instructions: 'w', model: new ScriptedModel([{ error: new Error('down') }]) });
    const { agent } = coordinatorWith([subagentTool(weather)], [handoffTo('subagent_weather'), { text: 'The weather agent is down.' }]);
    const { events, result } = await streamAll(agent, 'go');
    const failed = result.toolResults[0]!;
    expect(failed).toMatchObject({ ok: false, code: 'handoff_failed' });
    expect(!failed.ok && failed.error).toContain('down');
    expect(handoffEvents(events).at(-1)).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('falls back when an attempt runs past timeoutMs and onError is fallback', async () => {
    const weatherModel = new ScriptedModel([{ hang: true }]);
    const weather = new Agent({ name: 'weather', instructions: 'w', model: weatherModel });
    const { agent } = coordinatorWith([subagentTool(weather, { policy: { timeoutMs: 20, onError: 'fallback' } })], [
      handoffTo('subagent_weather'),
      { text: 'No weather right now.' },
    ]);
    const { events, result } = await streamAll(agent, 'go');
    const fallback = result.toolResults[0]!;
    expect(fallback.ok && fallback.output).toMatchObject({ status: 'fallback', outputText: null });
    expect(JSON.stringify(fallback)).toContain('timeoutMs 20');
    expect(handoffEvents(events).at(-1)).toMatchObject({ status: 'fallback', attempts: 1 });
    expect(result.status).toBe('completed');
  });

  it('blocks a nested handoff at maxDepth 1 and names maxDepth', async () => {
    const leafModel = new ScriptedModel([]);
    const leaf = new Agent({ name: 'leaf', instructions: 'l', model: leafModel });
    const middleModel = new ScriptedModel([handoffTo('subagent_leaf'), { text: 'The leaf is out of reach.' }]);
    const middle = new Agent({ name: 'middle', instructions: 'm', model: middleModel, tools: [subagentTool(leaf)] });
    const { agent } = coordinatorWith([subagentTool(middle)], [handoffTo('subagent_middle'), { text: 'done' }]);
    const result = await agent.newSession().run('go');
    leafModel.assertDone();
    middleModel.assertDone();
    expect(result.toolResults[0]).toMatchObject({ ok: true, output: { outputText: 'The leaf is out of reach.' } });
    const observation = JSON.parse(middleModel.requests[1]!.messages.at(-1)!.content!) as { ok: boolean; error: string };
    expect(observation.ok).toBe(false);
    expect(observation.error).toContain('maxDepth 1');
    expect(observation.error).toContain('depth 2');
  });

  it('allows the nested handoff when maxDepth is 2', async () => {
    const leaf = new Agent({ name: 'leaf', instructions: 'l', model: new ScriptedModel([{ text: 'leaf answer' }]) });
    const middleModel = new ScriptedModel([handoffTo('subagent_leaf'), { text: 'relayed' }]);
    const middle = new Agent({ name: 'middle', instructions: 'm', model: middleModel, tools: [subagentTool(leaf, { policy: { maxDepth: 2 } })] });
    const { agent } = coordinatorWith([subagentTool(middle, { policy: { maxDepth: 2 } })], [handoffTo('subagent_middle'), { text: 'done' }]);
    await agent.newSession().run('go');
    const observation = JSON.parse(middleModel.requests[1]!.messages.at(-1)!.content!) as { ok: boolean; output: { outputText: string } };
    expect(observation).toEqual({ ok: true, output: { subagent: 'leaf', outputText: 'leaf answer', attempts: 1 } });
  });

  it('rejects an invalid policy when the tool is made', () => {
    const weather = new Agent({ name: 'weather', instructions: 'w', model: new ScriptedModel([]) });
    expect(() => subagentTool(weather, { policy: { maxDepth: 0 } })).toThrow(AgentDefinitionError);
    expect(() => subagentTool(weather, { policy: { maxDepth: 0 } })).toThrow(/maxDepth: maxDepth must be at least 1/);
    expect(() => subagentTool(weather, { policy: { onError: 'retry' as 'fail' } })).toThrow(/onError/);
  });
});
