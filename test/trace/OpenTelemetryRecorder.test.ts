import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, AgentNode, OpenAIChatModel, OpenTelemetryRecorder, SqliteRunStore, StateGraph, humanNode, replayRun, resumeRun, subagentTool, tool } from '../../src/index.js';
import { ScriptedModel, startFakeOpenAIServer } from '../../src/testing/index.js';

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const recorder = new OpenTelemetryRecorder({ tracer: provider.getTracer('test') });
  const spans = () => exporter.getFinishedSpans();
  const named = (name: string) => spans().filter((s) => s.name === name);
  const one = (name: string) => {
    const found = named(name);
    expect(found, `spans named ${name}: ${spans().map((s) => s.name).join(', ')}`).toHaveLength(1);
    return found[0]!;
  };
  return { recorder, spans, named, one };
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

function supportGraph() {
  const lookup = tool({ name: 'lookup', description: 'Looks an order up', parameters: z.object({ id: z.string() }), execute: ({ id }) => ({ id, status: 'shipped' }) });
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'lookup', arguments: { id: '42' } }], usage: { inputTokens: 10, outputTokens: 3 } },
    { text: 'Order 42 shipped.', usage: { inputTokens: 20, outputTokens: 5 } },
  ]);
  const agent = new Agent({ name: 'support', instructions: 'help', model, tools: [lookup] });
  return new StateGraph({ name: 'support' })
    .addNode('classify', (ctx) => {
      ctx.put('intent', 'order');
      return null;
    })
    .addNode('answer', new AgentNode(agent))
    .start('classify')
    .addConditionalEdges('classify', (ctx) => String(ctx.get('intent')), { order: 'answer' });
}

const dir = mkdtempSync(join(tmpdir(), 'sb-otel-'));
const store = new SqliteRunStore({ file: join(dir, 'runs.db') });
afterAll(() => store.close());

/** draft → approve (a person) → finish: a stored run that waits once and is resumed. */
const approvalGraph = () =>
  new StateGraph({ name: 'approval' })
    .addNode('draft', () => 'draft')
    .addNode('approve', humanNode({ reason: 'approve it' }))
    .addNode('finish', (ctx) => `done: ${String(ctx.get('humanReply'))}`)
    .start('draft')
    .addEdge('draft', 'approve')
    .addEdge('approve', 'finish');

describe('OpenTelemetryRecorder', () => {
  it('makes run, node, model-call and tool-call spans with parents from the envelope', async () => {
    const { recorder, spans, named, one } = tracing();
    const run = await supportGraph().run('where is 42?', { runId: 'otel-1', recorders: [recorder] });
    expect(run.status).toBe('completed');
    const root = one('invoke_workflow support');
    expect(parentOf(root)).toBeUndefined();
    expect(root.attributes).toMatchObject({ 'switchboard.run_id': 'otel-1', 'switchboard.graph': 'support', 'switchboard.status': 'completed', 'switchboard.steps': 2 });

    const classify = one('node classify');
    const answer = one('node answer');
    expect(parentOf(classify)).toBe(idOf(root));
    expect(parentOf(answer)).toBe(idOf(root));
    expect(classify.attributes).toMatchObject({
      'switchboard.step': 1,
      'switchboard.delta.set': ['intent'],
      'switchboard.route.to': 'answer',
      'switchboard.route.kind': 'conditional',
      'switchboard.route.index': 0,
      'switchboard.route.key': 'order',
    });

    // The agent node's agent gets its own invocation span; its model and tool calls sit under it.
    const agent = one('invoke_agent support');
    expect(parentOf(agent)).toBe(idOf(answer));
    const chats = named('chat scripted');
    expect(chats).toHaveLength(2);
    for (const chat of chats) expect(parentOf(chat)).toBe(idOf(agent));
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'scripted',
      'gen_ai.agent.name': 'support',
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 3,
    });
    const toolSpan = one('execute_tool lookup');
    expect(parentOf(toolSpan)).toBe(idOf(agent));
    expect(toolSpan.attributes).toMatchObject({ 'gen_ai.tool.name': 'lookup' });
    expect(toolSpan.status.code).toBe(SpanStatusCode.UNSET);

    // Every span belongs to one trace, and children start no earlier than their parents.
    expect(new Set(spans().map((s) => s.spanContext().traceId)).size).toBe(1);
    const byId = new Map(spans().map((s) => [idOf(s), s]));
    for (const span of spans()) {
      const parent = byId.get(parentOf(span) ?? '');
      if (parent !== undefined) expect(toMs(span.startTime)).toBeGreaterThanOrEqual(toMs(parent.startTime));
    }
    expect(spans()).toHaveLength(7);
  });

  it('makes a span for a subagent handoff inside the node that made it', async () => {
    const { recorder, one } = tracing();
    const weather = new Agent({ name: 'Weather', instructions: 'w', model: new ScriptedModel([{ text: 'Sunny.' }]) });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'subagent_weather', arguments: { task: 'Paris?' } }] }, { text: 'It is sunny.' }]);
    const coordinator = new Agent({ name: 'coordinator', instructions: 'c', model, tools: [subagentTool(weather)] });
    await new StateGraph({ name: 'delegating' }).addNode('delegate', new AgentNode(coordinator)).start('delegate').run('Paris?', { recorders: [recorder] });
    const handoff = one('invoke_agent Weather');
    const coordinatorSpan = one('invoke_agent coordinator');
    expect(parentOf(coordinatorSpan)).toBe(idOf(one('node delegate')));
    expect(parentOf(handoff)).toBe(idOf(coordinatorSpan));
    expect(handoff.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'switchboard.handoff.status': 'completed', 'switchboard.handoff.attempts': 1 });
    expect(parentOf(one('execute_tool subagent_weather'))).toBe(idOf(coordinatorSpan));
  });

  it('marks failed nodes and runs as errors', async () => {
    const { recorder, one } = tracing();
    const graph = new StateGraph({ name: 'boom' })
      .addNode('a', () => {
        throw new Error('no luck');
      })
      .start('a');
    await graph.run('x', { recorders: [recorder] });
    expect(one('node a').status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'node "a" failed: no luck' });
    expect(one('invoke_workflow boom').status.code).toBe(SpanStatusCode.ERROR);
  });

  it('gives each leg of a stored run its span, and replays stored events into the same tree', async () => {
    const graph = approvalGraph();
    const live = tracing();
    const first = await graph.run('x', { store, recorders: [live.recorder] });
    expect(first.status).toBe('waiting');
    await resumeRun(graph, first.runId, { reply: 'yes' }, { store, recorders: [live.recorder] });
    const legs = live.named('invoke_workflow approval');
    expect(legs).toHaveLength(2);
    expect(legs.map((s) => s.attributes['switchboard.status']).sort()).toEqual(['completed', 'waiting']);
    const approve = live.named('node approve');
    expect(approve).toHaveLength(2);
    expect(approve.find((s) => s.attributes['switchboard.waiting'] === true)).toBeDefined();
    expect(approve.find((s) => s.attributes['switchboard.continued'] === true)?.attributes['switchboard.route.to']).toBe('finish');
    const resumedLeg = legs.find((s) => s.attributes['switchboard.resume_cause'] === 'reply')!;
    expect(parentOf(live.one('node finish'))).toBe(idOf(resumedLeg));

    const replayed = tracing();
    expect(await replayRun(store, first.runId, [replayed.recorder])).toBe((await store.listEvents(first.runId)).length);
    expect(replayed.spans().map((s) => s.name).sort()).toEqual(live.spans().map((s) => s.name).sort());
  });

  it('starts run and node spans with their attributes in the order the spreads they were built by gave', async () => {
    const graph = approvalGraph();
    const live = tracing();
    const first = await graph.run('order 42', { store, recorders: [live.recorder] });
    await resumeRun(graph, first.runId, { reply: 'yes' }, { store, recorders: [live.recorder] });
    // The old literals, rebuilt from each span's own values: the span's first keys must be these, in this order.
    type Attrs = Record<string, unknown>;
    const ids = (a: Attrs): Attrs => ({
      'switchboard.run_id': a['switchboard.run_id'],
      'switchboard.trace_id': a['switchboard.trace_id'],
      'switchboard.span_id': a['switchboard.span_id'],
      'switchboard.path': a['switchboard.path'],
      ...(a['switchboard.parent_span_id'] === undefined ? {} : { 'switchboard.parent_span_id': a['switchboard.parent_span_id'] }),
    });
    const nodeStart = (a: Attrs): Attrs => ({
      ...ids(a),
      'switchboard.node_id': a['switchboard.node_id'],
      ...(a['switchboard.step'] === undefined ? {} : { 'switchboard.step': a['switchboard.step'] }),
      ...(a['switchboard.continued'] === true ? { 'switchboard.continued': true } : {}),
      ...(a['switchboard.continued'] === true ? {} : { 'switchboard.input': a['switchboard.input'] }),
    });
    const runStart = (a: Attrs): Attrs => ({ ...ids(a), ...(a['switchboard.graph'] === undefined ? {} : { 'switchboard.graph': a['switchboard.graph'] }) });
    const startsWith = (a: Attrs, expected: Attrs) => {
      const keys = Object.keys(expected);
      expect(Object.keys(a).slice(0, keys.length)).toEqual(keys);
      expect(Object.fromEntries(keys.map((k) => [k, a[k]]))).toEqual(expected);
    };
    const nodes = live.spans().filter((s) => s.name.startsWith('node '));
    expect(nodes.map((s) => s.name).sort()).toEqual(['node approve', 'node approve', 'node draft', 'node finish']);
    for (const span of nodes) startsWith(span.attributes, nodeStart(span.attributes));
    expect(nodes.filter((s) => s.attributes['switchboard.continued'] === true)).toHaveLength(1);
    expect(live.one('node draft').attributes['switchboard.input']).toBe('order 42');
    expect(live.one('node draft').attributes['switchboard.step']).toBe(1);
    const legs = live.named('invoke_workflow approval');
    expect(legs).toHaveLength(2);
    for (const span of legs) startsWith(span.attributes, runStart(span.attributes));
    expect(legs.every((s) => s.attributes['switchboard.graph'] === 'approval' && s.attributes['switchboard.run_id'] === first.runId)).toBe(true);
  });

  it('starts agent, model-call and tool-call spans with the node id after their GenAI attributes, as the spreads did', async () => {
    const { recorder, spans } = tracing();
    await supportGraph().run('where is order 42?', { recorders: [recorder] });
    type Attrs = Record<string, unknown>;
    // The old `{ ...attributes, 'switchboard.node_id': … }`, with `attributes` rebuilt from the span's own values.
    const pick = (a: Attrs, keys: string[]): Attrs => Object.fromEntries(keys.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
    const started: Record<string, (a: Attrs) => Attrs> = {
      chat: (a) => ({ ...pick(a, ['gen_ai.operation.name', 'gen_ai.provider.name', 'gen_ai.request.model', 'gen_ai.agent.name', 'switchboard.iteration', 'switchboard.tools']), 'switchboard.node_id': a['switchboard.node_id'] }),
      execute_tool: (a) => ({ ...pick(a, ['gen_ai.operation.name', 'gen_ai.tool.name', 'gen_ai.tool.call.id', 'gen_ai.tool.type', 'gen_ai.agent.name']), 'switchboard.node_id': a['switchboard.node_id'] }),
      invoke_agent: (a) => ({ ...pick(a, ['gen_ai.operation.name', 'gen_ai.agent.name', 'gen_ai.provider.name', 'gen_ai.request.model']), 'switchboard.node_id': a['switchboard.node_id'] }),
    };
    const seen: string[] = [];
    for (const span of spans()) {
      const operation = String(span.attributes['gen_ai.operation.name']);
      const expected = started[operation]?.(span.attributes);
      if (expected === undefined) continue;
      seen.push(operation);
      expect(Object.keys(span.attributes).slice(0, Object.keys(expected).length), span.name).toEqual(Object.keys(expected));
      expect(pick(span.attributes, Object.keys(expected))).toEqual(expected);
      expect(span.attributes['switchboard.node_id']).toBe('answer');
    }
    expect(seen.sort()).toEqual(['chat', 'chat', 'execute_tool', 'invoke_agent']);
  });

  describe('on the GenAI semantic conventions', () => {
    /** The `gen_ai.*` attributes the current GenAI semantic conventions define that the recorder may set. */
    const CONVENTION = new Set([
      'gen_ai.operation.name',
      'gen_ai.provider.name',
      'gen_ai.request.model',
      'gen_ai.response.model',
      'gen_ai.response.id',
      'gen_ai.response.finish_reasons',
      'gen_ai.usage.input_tokens',
      'gen_ai.usage.output_tokens',
      'gen_ai.agent.name',
      'gen_ai.tool.name',
      'gen_ai.tool.call.id',
      'gen_ai.tool.type',
      'gen_ai.workflow.name',
    ]);
    const OPERATIONS = new Set(['invoke_workflow', 'invoke_agent', 'chat', 'execute_tool']);

    it('names spans by operation, uses only current attribute names and never writes "undefined"', async () => {
      const server = await startFakeOpenAIServer([{ text: 'Order 42 shipped.' }]);
      try {
        const { recorder, spans, one } = tracing();
        const model = new OpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: 'test' });
        const graph = new StateGraph({ name: 'desk' }).addNode('answer', new AgentNode(new Agent({ name: 'desk-agent', instructions: 'help', model }))).start('answer');
        expect((await graph.run('where is 42?', { recorders: [recorder] })).status).toBe('completed');
        await supportGraph().run('where is 42?', { recorders: [recorder] });

        for (const span of spans()) {
          for (const [key, value] of Object.entries(span.attributes)) {
            expect(key, `${span.name}: ${key} is deprecated`).not.toBe('gen_ai.system');
            if (key.startsWith('gen_ai.')) expect(CONVENTION.has(key), `${span.name}: ${key}`).toBe(true);
            expect(String(value), `${span.name}: ${key}`).not.toMatch(/undefined/);
          }
          const operation = span.attributes['gen_ai.operation.name'];
          if (operation !== undefined) {
            expect(OPERATIONS.has(String(operation)), span.name).toBe(true);
            expect(span.name.startsWith(`${String(operation)} `), span.name).toBe(true);
          }
        }
        expect(one('invoke_workflow desk').attributes['gen_ai.operation.name']).toBe('invoke_workflow');
        expect(one('chat gpt-test').attributes).toMatchObject({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-test',
          'gen_ai.response.model': 'gpt-test',
          'gen_ai.response.id': 'chatcmpl-fake-1',
          'gen_ai.agent.name': 'desk-agent',
        });
        expect(one('execute_tool lookup').attributes['gen_ai.tool.name']).toBe('lookup');
      } finally {
        await server.close();
      }
    });
  });
});

function toMs([seconds, nanos]: [number, number]): number {
  return seconds * 1000 + nanos / 1e6;
}
