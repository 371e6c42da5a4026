import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, AgentNode, MemoryRecorder, MemoryRunStore, OfflineModel, OpenTelemetryRecorder, StateGraph, replayRun, tool, type TraceEvent } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { customerService } from '../../machines/customerService.js';
import { salesReportService } from '../../specialists/report/salesReportService.js';

afterAll(() => salesReportService().close());

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const recorder = new OpenTelemetryRecorder({ tracer: provider.getTracer('test') });
  const spans = () => exporter.getFinishedSpans();
  const one = (name: string) => {
    const found = spans().filter((s) => s.name === name);
    expect(found, `spans named ${name}: ${spans().map((s) => s.name).join(', ')}`).toHaveLength(1);
    return found[0]!;
  };
  return { recorder, spans, one };
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const ms = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;

/**
 * The attribute names of the GenAI and MCP semantic conventions (open-telemetry/semantic-conventions-genai:
 * gen-ai-agent-spans.md, gen-ai-spans.md, mcp.md) the recorder may write, and the operations it may name.
 */
const GEN_AI = new Set([
  'gen_ai.operation.name',
  'gen_ai.provider.name',
  'gen_ai.workflow.name',
  'gen_ai.agent.name',
  'gen_ai.request.model',
  'gen_ai.response.model',
  'gen_ai.response.id',
  'gen_ai.response.finish_reasons',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.tool.name',
  'gen_ai.tool.call.id',
  'gen_ai.tool.type',
]);
const MCP = new Set(['mcp.method.name', 'mcp.protocol.version', 'mcp.session.id', 'jsonrpc.request.id', 'network.transport']);
const OPERATIONS = new Set(['invoke_workflow', 'invoke_agent', 'chat', 'execute_tool']);
/** Attributes each operation requires (Required in the conventions), and the span kind it names. */
const REQUIRED: Record<string, { attributes: string[]; kind: SpanKind }> = {
  invoke_workflow: { attributes: ['gen_ai.operation.name'], kind: SpanKind.INTERNAL },
  invoke_agent: { attributes: ['gen_ai.operation.name', 'gen_ai.provider.name'], kind: SpanKind.INTERNAL },
  chat: { attributes: ['gen_ai.operation.name', 'gen_ai.provider.name'], kind: SpanKind.CLIENT },
  execute_tool: { attributes: ['gen_ai.operation.name', 'gen_ai.tool.name'], kind: SpanKind.INTERNAL },
};

/** Checks every span against the conventions: names, required attributes, kinds, known attribute names. */
function expectConventions(spans: readonly ReadableSpan[]): void {
  for (const span of spans) {
    for (const [key, value] of Object.entries(span.attributes)) {
      if (key.startsWith('gen_ai.')) expect(GEN_AI.has(key), `${span.name}: ${key}`).toBe(true);
      if (key.startsWith('mcp.') || key.startsWith('jsonrpc.') || key.startsWith('network.')) expect(MCP.has(key), `${span.name}: ${key}`).toBe(true);
      expect(String(value), `${span.name}: ${key}`).not.toMatch(/undefined/);
    }
    const method = span.attributes['mcp.method.name'];
    if (method !== undefined) {
      // An MCP client span: `{mcp.method.name} {gen_ai.tool.name}`, kind CLIENT, `execute_tool` for tools/call.
      expect(span.name).toBe(`${String(method)} ${String(span.attributes['gen_ai.tool.name'])}`);
      expect(span.kind).toBe(SpanKind.CLIENT);
      if (method === 'tools/call') expect(span.attributes['gen_ai.operation.name']).toBe('execute_tool');
      continue;
    }
    const operation = span.attributes['gen_ai.operation.name'];
    if (operation === undefined) {
      expect(span.name, 'only node spans go without an operation').toMatch(/^node /);
      continue;
    }
    expect(OPERATIONS.has(String(operation)), span.name).toBe(true);
    expect(span.name.startsWith(`${String(operation)} `), span.name).toBe(true);
    const required = REQUIRED[String(operation)]!;
    for (const key of required.attributes) expect(span.attributes[key], `${span.name} lacks ${key}`).toBeDefined();
    expect(span.kind, span.name).toBe(required.kind);
  }
}

describe('OpenTelemetryRecorder on the GenAI conventions', () => {
  it('makes an invoke_agent span per agent invocation with the token totals, its model and tool calls under it', async () => {
    const { recorder, spans, one } = tracing();
    const lookup = tool({ name: 'lookup', description: 'Looks an order up', parameters: z.object({ id: z.string() }), execute: ({ id }) => ({ id, status: 'shipped' }) });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'lookup', arguments: { id: '42' } }], usage: { inputTokens: 10, outputTokens: 3 } },
      { text: 'Order 42 shipped.', usage: { inputTokens: 20, outputTokens: 5 } },
    ]);
    const graph = new StateGraph({ name: 'desk' }).addNode('answer', new AgentNode(new Agent({ name: 'support', instructions: 'help', model, tools: [lookup] }))).start('answer');
    expect((await graph.run('where is 42?', { recorders: [recorder] })).status).toBe('completed');

    expect(one('invoke_workflow desk').attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.workflow.name': 'desk' });
    const agent = one('invoke_agent support');
    expect(parentOf(agent)).toBe(idOf(one('node answer')));
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'scripted',
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.usage.output_tokens': 8,
    });
    const call = one('execute_tool lookup');
    expect(parentOf(call)).toBe(idOf(agent));
    expect(call.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.type': 'function', 'gen_ai.agent.name': 'support' });
    expect(call.attributes['gen_ai.tool.call.id']).toEqual(expect.any(String));
    // The invocation covers its calls.
    for (const child of spans().filter((s) => parentOf(s) === idOf(agent))) {
      expect(ms(child.startTime)).toBeGreaterThanOrEqual(ms(agent.startTime));
      expect(ms(child.endTime)).toBeLessThanOrEqual(ms(agent.endTime));
    }
    expectConventions(spans());
  });

  it('marks an agent that ran out of turns as an error on its invoke_agent span', async () => {
    const { recorder, one } = tracing();
    const loop = tool({ name: 'again', description: 'Loops', parameters: z.object({}), execute: () => 'more' });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'again', arguments: {} }] }]);
    const graph = new StateGraph({ name: 'spin' }).addNode('a', new AgentNode(new Agent({ name: 'spinner', instructions: 'x', model, tools: [loop], maxIterations: 1 }))).start('a');
    await graph.run('go', { recorders: [recorder] });
    const agent = one('invoke_agent spinner');
    expect(agent.status.code).toBe(SpanStatusCode.ERROR);
    expect(agent.attributes['error.type']).toBe('max_iterations');
  });

  it('traces graph.run of the customer-service graph: agents, tool calls of the order loop and the MCP call of the report server', async () => {
    const graph = customerService({ model: new OfflineModel() });
    const { recorder, spans, one } = tracing();
    const store = new MemoryRunStore();
    const report = await graph.run('Show me the September 2026 sales report.', { recorders: [recorder], store });
    expect(report.status).toBe('completed');

    // report_mcp runs the `report` agent, whose tool call goes over MCP to the server on stdio.
    const node = one('node report_mcp');
    const agent = one('invoke_agent report');
    expect(parentOf(agent)).toBe(idOf(node));
    expect(agent.attributes).toMatchObject({ 'gen_ai.provider.name': 'offline', 'gen_ai.agent.name': 'report' });
    const toolCall = one('execute_tool query_sales_report');
    expect(parentOf(toolCall)).toBe(idOf(agent));
    const mcp = one('tools/call query_sales_report');
    expect(parentOf(mcp)).toBe(idOf(toolCall));
    expect(mcp.kind).toBe(SpanKind.CLIENT);
    expect(mcp.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'query_sales_report', 'network.transport': 'pipe' });
    expect(mcp.attributes['mcp.protocol.version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(mcp.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(mcp.status.code).toBe(SpanStatusCode.UNSET);
    expect(ms(mcp.startTime)).toBeGreaterThanOrEqual(ms(toolCall.startTime));
    expect(ms(mcp.endTime)).toBeLessThanOrEqual(ms(toolCall.endTime));

    // The order loop: tool calls the node runs itself, under the node, each ended by its result.
    const order = await graph.run('Check order SO20261001 for me and see how much can still be refunded.', { recorders: [recorder], store });
    expect(order.status).toBe('completed');
    for (const name of ['lookup_order', 'calculate_refund']) {
      const span = one(`execute_tool ${name}`);
      expect(span.attributes).toMatchObject({ 'gen_ai.tool.name': name, 'gen_ai.tool.type': 'function' });
      const parent = spans().find((s) => idOf(s) === parentOf(span))!;
      expect(parent.name).toBe('node tool_execute');
      expect(ms(span.endTime)).toBeLessThanOrEqual(ms(parent.endTime));
    }
    expectConventions(spans());

    // Stored events replayed later make the same spans.
    const replayed = tracing();
    await replayRun(store, report.runId, [replayed.recorder]);
    const trace = node.spanContext().traceId;
    const live = spans().filter((s) => s.spanContext().traceId === trace);
    expect(replayed.spans().map((s) => s.name).sort()).toEqual(live.map((s) => s.name).sort());
    expectConventions(replayed.spans());
  });

  it('marks a failed MCP request as an error, and makes a span for an MCP call recorded without its request', () => {
    const { recorder, spans } = tracing();
    let seq = 0;
    const event = (type: string, fields: Record<string, unknown>, nodeId: string | null = 'report_mcp'): TraceEvent => ({
      type,
      runId: 'r1',
      seq: ++seq,
      at: 1_000 + seq,
      traceId: 't1',
      spanId: nodeId === null ? 'run' : 'node-1',
      parentSpanId: nodeId === null ? null : 'run',
      path: 'root',
      nodeId,
      ...fields,
    });
    const wire = { method: 'tools/call', tool: 'query_sales_report', requestKey: '2026-09#1', transport: 'pipe' };
    for (const e of [
      event('run.started', { graph: 'report' }, null),
      event('node.started', { step: 1 }),
      event('mcp.request', { ...wire, protocolVersion: '2025-11-25' }),
      event('mcp.call', { ...wire, ok: false, error: { code: 'tool_failed', message: 'sales report MCP server failed' } }),
      // An older run's event: no request before it.
      event('mcp.call', { tool: 'query_sales_report', period: '2026-09', found: true }),
      event('node.completed', { step: 1, durationMs: 5, delta: null, result: null }),
      event('edge.traversed', { from: 'report_mcp', to: '__end__', kind: 'end' }),
      event('run.completed', { run: { status: 'completed', steps: 1 } }, null),
    ])
      recorder.record(e);
    const mcpSpans = spans().filter((s) => s.name === 'tools/call query_sales_report');
    expect(mcpSpans).toHaveLength(2);
    const failed = mcpSpans.find((s) => s.status.code === SpanStatusCode.ERROR)!;
    expect(failed.status.message).toBe('sales report MCP server failed');
    expect(failed.attributes).toMatchObject({ 'error.type': 'tool_failed', 'mcp.protocol.version': '2025-11-25', 'network.transport': 'pipe' });
    expect(mcpSpans.find((s) => s !== failed)!.attributes['mcp.method.name']).toBe('tools/call');
    expectConventions(spans());
  });

  it('records the same spans from graph.run and graph.stream of the same scenario', async () => {
    const graph = customerService({ model: new OfflineModel() });
    const message = 'Explain the headphone return policy, the refundable amount for SO20261001, and the September sales report.';
    const ran = tracing();
    await graph.run(message, { recorders: [ran.recorder] });
    const streamed = tracing();
    const memory = new MemoryRecorder();
    for await (const _ of graph.stream(message, { recorders: [streamed.recorder, memory] })) void _;
    const names = (spans: readonly ReadableSpan[]) => spans.map((s) => s.name).sort();
    expect(names(ran.spans())).toEqual(names(streamed.spans()));
    expect(names(ran.spans())).toEqual(expect.arrayContaining(['invoke_agent report', 'invoke_agent policy_writer', 'execute_tool lookup_order', 'tools/call query_sales_report']));
  });
});
