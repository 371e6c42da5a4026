import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, AgentDefinitionError, AgentNode, OfflineModel, OpenAIChatModel, StateGraph, tool, type ToolChoice } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { useFakeOpenAIServer } from '../support/useFakeOpenAIServer.js';

function tools(log: string[] = []) {
  return [
    tool({ name: 'search', description: 'Search', parameters: z.object({ q: z.string().default('all') }), execute: ({ q }) => (log.push(`search:${q}`), ['hit']) }),
    tool({ name: 'escalate', description: 'Escalate', parameters: z.object({}), execute: () => (log.push('escalate'), 'escalated') }),
  ];
}

const agentWith = (toolChoice: ToolChoice, offline?: Agent['offline'], log?: string[]) =>
  new Agent({ name: 'triage', instructions: 'Triage.', model: new OfflineModel(), tools: tools(log), toolChoice, ...(offline ? { offline } : {}) });

describe('toolChoice, offline', () => {
  it('forces the first turn with "required", then lets the model answer ("auto")', async () => {
    const seen: ToolChoice[] = [];
    const result = await agentWith('required', ({ toolChoice, toolResults }) => {
      seen.push(toolChoice);
      return toolResults.length === 0 ? { toolCalls: [{ name: 'search', arguments: { q: 'refund' } }] } : 'found it';
    }).run('refund?');
    expect(seen).toEqual(['required', 'auto']);
    expect(result.outputText).toBe('found it');
  });

  it('makes the default rule call the named tool, with no arguments', async () => {
    const log: string[] = [];
    const result = await agentWith({ name: 'escalate' }, undefined, log).run('angry customer');
    expect(log).toEqual(['escalate']);
    expect(result.toolCalls.map((c) => c.name)).toEqual(['escalate']);
    expect(result.outputText).toBe('escalate: "escalated"');
  });

  it('makes the default rule call the first tool under "required"', async () => {
    const log: string[] = [];
    await agentWith('required', undefined, log).run('x');
    expect(log).toEqual(['search:all']);
  });

  it('refuses a rule that disobeys the choice, naming it', async () => {
    await expect(agentWith('none', () => ({ toolCalls: [{ name: 'search', arguments: {} }] })).run('x')).rejects.toThrow(/toolChoice is "none"/);
    await expect(agentWith('required', () => 'just text').run('x')).rejects.toThrow(/toolChoice is "required"/);
    await expect(agentWith({ name: 'escalate' }, () => ({ toolCalls: [{ name: 'search', arguments: {} }] })).run('x')).rejects.toThrow(
      /called "search" although toolChoice is \{ name: "escalate" \}/,
    );
    await expect(agentWith({ name: 'escalate' }, () => 'text').run('x')).rejects.toThrow(AgentDefinitionError);
  });

  it('keeps "none" for every turn and shows it to the rule', async () => {
    const seen: ToolChoice[] = [];
    await agentWith('none', ({ toolChoice }) => (seen.push(toolChoice), 'no tools needed')).run('x');
    expect(seen).toEqual(['none']);
  });

  it('fails the graph run with the typed error when the rule disobeys', async () => {
    const run = await new StateGraph().addNode('triage', new AgentNode(agentWith('required', () => 'text'))).start('triage').run('x');
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('agent_definition');
  });
});

describe('toolChoice at build time', () => {
  const build = (toolChoice: unknown, extra: Record<string, unknown> = {}) => () =>
    new Agent({ name: 'triage', instructions: 'i', model: new OfflineModel(), tools: tools(), toolChoice: toolChoice as ToolChoice, ...extra });

  it('refuses a tool name that is not one of the agent\'s tools', () => {
    expect(build({ name: 'serch' })).toThrow(AgentDefinitionError);
    expect(build({ name: 'serch' })).toThrow(/toolChoice names "serch", which is not one of its tools \(search, escalate\)/);
  });

  it('refuses malformed choices', () => {
    for (const bad of ['force', 'AUTO', { name: '' }, { name: 'search', extra: 1 }, { tool: 'search' }, 3, null]) {
      expect(build(bad), JSON.stringify(bad)).toThrow(/toolChoice must be "auto", "none", "required" or \{ name/);
    }
  });

  it('refuses "required" without tools and a named tool that allowedTools never exposes', () => {
    expect(() => new Agent({ name: 'a', instructions: 'i', model: new OfflineModel(), toolChoice: 'required' })).toThrow(/needs at least one tool/);
    expect(build({ name: 'escalate' }, { allowedTools: ['search'] })).toThrow(/allowedTools \(search\) never expose/);
  });

  it('refuses at the turn a forced tool that a dynamic allowedTools hides', async () => {
    const agent = new Agent({ name: 'a', instructions: 'i', model: new OfflineModel(), tools: tools(), toolChoice: { name: 'escalate' }, allowedTools: () => ['search'] });
    await expect(agent.run('x')).rejects.toThrow(/exposes only search on this turn/);
  });

  it('passes the turn\'s choice to any model client', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'search', arguments: {} }] }, { text: 'done' }]);
    await new Agent({ name: 'a', instructions: 'i', model, tools: tools(), toolChoice: { name: 'search' } }).run('x');
    expect(model.requests.map((r) => r.toolChoice)).toEqual([{ name: 'search' }, 'auto']);
  });
});

describe('toolChoice through the fake OpenAI-compatible server', () => {
  const fake = useFakeOpenAIServer();
  const model = () => new OpenAIChatModel({ model: 'gpt-test', baseURL: fake().baseURL, apiKey: 'sk-test-choice' });

  it('sends a named tool as tool_choice { type: function } on the first turn and "auto" after', async () => {
    fake().enqueue({ toolCalls: [{ name: 'escalate', arguments: {} }] }, { text: 'Escalated.' });
    const agent = new Agent({ name: 'triage', instructions: 'i', model: model(), tools: tools(), toolChoice: { name: 'escalate' } });
    const result = await agent.run('angry');
    expect(result.outputText).toBe('Escalated.');
    expect(fake().requests.map((r) => r.body['tool_choice'])).toEqual([{ type: 'function', function: { name: 'escalate' } }, 'auto']);
  });

  it('sends "required" and "none" as given', async () => {
    fake().enqueue({ toolCalls: [{ name: 'search', arguments: { q: 'a' } }] }, { text: 'ok' }, { text: 'no tools' });
    await new Agent({ name: 'a', instructions: 'i', model: model(), tools: tools(), toolChoice: 'required' }).run('x');
    await new Agent({ name: 'b', instructions: 'i', model: model(), tools: tools(), toolChoice: 'none' }).run('x');
    expect(fake().requests.map((r) => r.body['tool_choice'])).toEqual(['required', 'auto', 'none']);
  });

  it('keeps sending "auto" by default', async () => {
    fake().enqueue({ text: 'ok' });
    await new Agent({ name: 'a', instructions: 'i', model: model(), tools: tools() }).run('x');
    expect(fake().requests[0]!.body['tool_choice']).toBe('auto');
  });
});
