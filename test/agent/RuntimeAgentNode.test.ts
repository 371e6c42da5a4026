import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, AgentNode, RuntimeAgentNode, SequentialWorkflow, StateGraph, tool, type WorkflowEvent } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

/** Reads a field of a node event (node events carry fields the engine's union does not name). */
const field = (event: WorkflowEvent, key: string): unknown => (event as unknown as Record<string, unknown>)[key];

describe('agents as graph nodes', () => {
  it('RuntimeAgentNode keeps its session memory between executions', async () => {
    const model = new ScriptedModel([{ text: 'first' }, { text: 'second' }]);
    const node = new RuntimeAgentNode(new Agent({ name: 'notes', instructions: 'i', model }).newSession());
    const flow = new SequentialWorkflow().addNode(node).addNode(node);
    const run = await flow.run('start');
    expect(run.outputText).toBe('second');
    expect(run.path).toEqual(['notes', 'notes']);
    expect(model.requests.map((r) => r.messages.length)).toEqual([2, 4]);
    expect(node.lastResult?.outputText).toBe('second');
  });

  it('AgentNode starts a fresh session for every execution', async () => {
    const model = new ScriptedModel([{ text: 'first' }, { text: 'second' }]);
    const node = new AgentNode(new Agent({ name: 'fresh', instructions: 'i', model }));
    await new SequentialWorkflow().addNode(node).addNode(node).run('start');
    expect(model.requests.map((r) => r.messages.length)).toEqual([2, 2]);
    expect(model.requests[1]!.messages[1]).toEqual({ role: 'user', content: 'first' });
  });

  it('forwards agent events as node events in stream() and still returns the result', async () => {
    const model = new ScriptedModel([{ text: 'streamed answer' }]);
    const graph = new StateGraph().addNode('agent', new AgentNode(new Agent({ name: 'a', instructions: 'i', model }))).start('agent');
    const events: WorkflowEvent[] = [];
    for await (const event of graph.stream('go')) events.push(event);
    const agentEvents = events.filter((e) => field(e, 'nodeId') === 'agent' && !e.type.startsWith('node.') && e.type !== 'edge.traversed');
    expect(agentEvents.map((e) => e.type)).toEqual(['model.request', 'model.delta', 'model.delta', 'model.response', 'final']);
    expect(agentEvents.every((e) => field(e, 'agent') === 'a' && typeof e.seq === 'number')).toBe(true);
    const completed = events.find((e) => e.type === 'node.completed');
    expect((field(completed!, 'result') as { outputText: string }).outputText).toBe('streamed answer');
    expect((events.at(-1) as { run: { outputText: string } }).run.outputText).toBe('streamed answer');
  });

  it('passes the graph context to tools and allowedTools', async () => {
    const remember = tool({
      name: 'remember',
      description: 'Stores a note in the graph state',
      parameters: z.object({ note: z.string() }),
      execute: ({ note }, ctx) => {
        ctx.workflow?.put('note', note);
        return 'stored';
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'remember', arguments: { note: 'hi' } }] }, { expectTools: [], text: 'done' }]);
    const agent = new Agent({
      name: 'a',
      instructions: 'i',
      model,
      tools: [remember],
      allowedTools: (state) => (state.workflow?.get('note') === undefined ? ['remember'] : []),
    });
    const run = await new StateGraph().addNode('agent', new AgentNode(agent)).start('agent').run('go');
    expect(run.state.get('note')).toBe('hi');
    model.assertDone();
  });

  it('fails the graph run with max_iterations when the agent runs out of turns', async () => {
    const ping = tool({ name: 'ping', description: 'p', parameters: z.object({}), execute: () => 'pong' });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'ping' }] }]);
    const agent = new Agent({ name: 'looper', instructions: 'i', model, tools: [ping], maxIterations: 1 });
    const run = await new StateGraph().addNode('loop', new AgentNode(agent)).start('loop').run('go');
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('max_iterations');
    expect(run.error?.message).toContain('maxIterations (1)');
  });

  it('reports a cancelled graph run when the graph is aborted while the agent thinks', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([{ before: () => controller.abort(), hang: true }]);
    const graph = new StateGraph().addNode('agent', new AgentNode(new Agent({ name: 'a', instructions: 'i', model }))).start('agent');
    const run = await graph.run('go', { signal: controller.signal });
    expect(run.status).toBe('cancelled');
  });
});
