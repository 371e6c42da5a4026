import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, AgentNode, JsonlRecorder, MemoryRecorder, StateGraph, tool, type TraceEvent, type WorkflowEvent } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-trace-'));

function twoNodes() {
  return new StateGraph({ name: 'two' })
    .addNode('a', (ctx) => {
      ctx.put('__scratch', 'internal');
      ctx.put('visible', 1);
      return 'A';
    })
    .addNode('b', () => 'B')
    .start('a')
    .addEdge('a', 'b');
}

describe('trace recorders', () => {
  it('MemoryRecorder receives every event with its envelope, redacted, while onEvent gets them as is', async () => {
    const memory = new MemoryRecorder();
    const raw: WorkflowEvent[] = [];
    const run = await twoNodes().run('in', { runId: 'r1', recorders: [memory], onEvent: (e) => raw.push(e) });
    expect(run.status).toBe('completed');
    expect(memory.events.map((e) => e.seq)).toEqual(raw.map((e) => e.seq));
    expect(memory.events.map((e) => e.type)).toEqual(raw.map((e) => e.type));
    for (const event of memory.events) {
      expect(event).toMatchObject({ runId: 'r1', path: 'root' });
      expect(event.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(event.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
    const completedA = memory.ofType('node.completed')[0]!;
    expect(completedA.delta).toEqual({ set: { visible: 1 }, deleted: [] });
    const rawA = raw.find((e) => e.type === 'node.completed')!;
    expect((rawA as { delta: { set: object } }).delta.set).toHaveProperty('__scratch', 'internal');
    // The final run's state map becomes a plain object.
    const last = memory.events.at(-1)!;
    expect((last.run as { state: object }).state).toMatchObject({ visible: 1, lastNodeId: 'b' });
    expect(memory.ofRun('r1')).toHaveLength(memory.events.length);
  });

  it('JsonlRecorder appends one redacted event per line', async () => {
    const file = join(dir, 'nested', 'run.jsonl');
    const recorder = new JsonlRecorder(file);
    await twoNodes().run('x', { recorders: [recorder] });
    await twoNodes().run('y', { recorders: [recorder] });
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const events = lines.map((l) => JSON.parse(l) as TraceEvent);
    expect(events.filter((e) => e.type === 'run.started')).toHaveLength(2);
    expect(events.slice(0, events.length / 2).map((e) => e.seq)).toEqual(events.slice(0, events.length / 2).map((_, i) => i + 1));
    expect(lines.join('\n')).not.toContain('__scratch');
    expect(recorder.error).toBeNull();
  });

  it('JsonlRecorder keeps its write error and lets the run finish', async () => {
    const recorder = new JsonlRecorder(join(dir, 'missing-dir-is-a-file'));
    const blocker = new JsonlRecorder(join(dir, 'missing-dir-is-a-file', 'x.jsonl'));
    await twoNodes().run('x', { recorders: [recorder] });
    const run = await twoNodes().run('x', { recorders: [blocker] });
    expect(run.status).toBe('completed');
    expect(blocker.error).toBeInstanceOf(Error);
  });

  it('detaches a recorder that throws and finishes the run', async () => {
    let calls = 0;
    const memory = new MemoryRecorder();
    const broken = {
      record: () => {
        calls += 1;
        throw new Error('disk full');
      },
    };
    const run = await twoNodes().run('x', { recorders: [broken, memory] });
    expect(run.status).toBe('completed');
    expect(calls).toBe(1);
    expect(memory.events.at(-1)?.type).toBe('run.completed');
  });

  it('records model calls with the model name and usage, and tool calls, in run() as in stream()', async () => {
    const lookup = tool({ name: 'lookup', description: 'Looks an order up', parameters: z.object({ id: z.string() }), execute: ({ id }) => ({ id, status: 'shipped' }) });
    const build = () => {
      const model = new ScriptedModel([
        { toolCalls: [{ name: 'lookup', arguments: { id: '42' } }], usage: { inputTokens: 10, outputTokens: 3 } },
        { text: 'Order 42 shipped.', usage: { inputTokens: 20, outputTokens: 5, totalTokens: 25 } },
      ]);
      const agent = new Agent({ name: 'support', instructions: 'help', model, tools: [lookup] });
      return new StateGraph({ name: 'agentic' }).addNode('answer', new AgentNode(agent)).start('answer');
    };
    const memory = new MemoryRecorder();
    await build().run('where is 42?', { recorders: [memory] });
    const types = memory.events.filter((e) => e.nodeId === 'answer' && !e.type.startsWith('node.') && e.type !== 'edge.traversed').map((e) => e.type);
    expect(types).toEqual(['model.request', 'model.response', 'tool.call', 'tool.result', 'model.request', 'model.response', 'final']);
    const responses = memory.ofType('model.response');
    expect(responses[0]).toMatchObject({ model: 'scripted', agent: 'support', iteration: 1, usage: { inputTokens: 10, outputTokens: 3 } });
    expect(responses[1]).toMatchObject({ model: 'scripted', usage: { totalTokens: 25 }, text: 'Order 42 shipped.' });
    expect(memory.ofType('model.request')[0]).toMatchObject({ model: 'scripted', tools: ['lookup'] });
    expect(memory.ofType('tool.result')[0]).toMatchObject({ result: { ok: true, output: { id: '42', status: 'shipped' } } });

    const streamed: string[] = [];
    for await (const event of build().stream('where is 42?')) if (event.type.startsWith('model.') && event.type !== 'model.delta') streamed.push(event.type);
    expect(streamed).toEqual(['model.request', 'model.response', 'model.request', 'model.response']);
  });

  it('emits nothing and redacts nothing for a run nobody listens to', async () => {
    let reported = 0;
    const graph = new StateGraph()
      .addNode('a', (ctx) => {
        if (ctx.reporting) reported += 1;
        ctx.report({ type: 'custom' });
        return 'A';
      })
      .start('a');
    expect((await graph.run('x')).status).toBe('completed');
    expect(reported).toBe(0);
    const memory = new MemoryRecorder();
    await graph.run('x', { recorders: [memory] });
    expect(reported).toBe(1);
    expect(memory.ofType('custom')[0]).toMatchObject({ nodeId: 'a', type: 'custom' });
  });
});

describe('events that cannot be redacted', () => {
  it('keep their envelope and their place in the log', async () => {
    const memory = new MemoryRecorder();
    const hostile = {
      get secret(): never {
        throw new Error('no reading me');
      },
    };
    const graph = new StateGraph().addNode('a', () => ({ outputText: 'A', rawResponse: hostile })).start('a');
    const run = await graph.run('x', { recorders: [memory] });
    expect(run.status).toBe('completed');
    const completed = memory.ofType('node.completed')[0]!;
    expect(completed).toMatchObject({ type: 'node.completed', nodeId: 'a', unreadable: true });
    expect(memory.events.map((e) => e.seq)).toEqual(memory.events.map((_, i) => i + 1));
  });
});
