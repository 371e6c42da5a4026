import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRecorder, OpenAIChatModel, RunSpansJson, runSpans, type SpanJson } from '../../src/index.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../../src/testing/index.js';
import { customerService } from '../../machines/customerService.js';
import { refundApproval } from '../../machines/refundApproval.js';
import { salesReportService } from '../../specialists/report/salesReportService.js';
import { scriptedTurn } from '../machines/scriptedCustomerServiceModel.js';
import { testWorkbench, type TestWorkbench } from './workbenchTarget.js';

// Every model call goes through the fake OpenAI-compatible server, which reports 10 + 5 = 15 tokens per call.
let server: FakeOpenAIServer;
let wb: TestWorkbench;

beforeAll(async () => {
  server = await startFakeOpenAIServer();
  server.enqueue(...Array.from({ length: 400 }, () => scriptedTurn));
  const model = new OpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test-fake', maxRetries: 0 });
  wb = testWorkbench({ graphs: [customerService({ model }), refundApproval()] });
});
afterAll(async () => {
  await wb.shutdown();
  await server.close();
  await salesReportService().close();
});

async function spansOf(message: string): Promise<RunSpansJson> {
  const started = await wb.json('/api/runs?wait=true', { method: 'POST', json: { message } });
  expect(started.body.status).toBe('completed');
  const got = await wb.json(`/api/runs/${started.body.runId}/spans`);
  expect(got.status).toBe(200);
  // The documented shape, parsed (not cast).
  return RunSpansJson.parse(got.body);
}

const childrenOf = (spans: RunSpansJson, parent: SpanJson) => spans.spans.filter((s) => s.parentId === parent.id);
const endOf = (s: SpanJson) => s.startMs + (s.durationMs ?? Number.NaN);

/** Each span lies inside its parent, its depth is its parent's plus one, and its tokens are its own plus its children's. */
function expectNested(spans: RunSpansJson): void {
  const byId = new Map(spans.spans.map((s) => [s.id, s]));
  expect(byId.size).toBe(spans.spans.length);
  for (const span of spans.spans) {
    expect(span.durationMs, `${span.kind} ${span.name} has ended`).not.toBeNull();
    if (span.parentId === null) continue;
    const parent = byId.get(span.parentId)!;
    expect(parent, `parent of ${span.name}`).toBeDefined();
    expect(span.depth).toBe(parent.depth + 1);
    expect(span.startMs).toBeGreaterThanOrEqual(parent.startMs);
    expect(endOf(span)).toBeLessThanOrEqual(endOf(parent));
    // Tree order: a parent comes before its children.
    expect(spans.spans.indexOf(parent)).toBeLessThan(spans.spans.indexOf(span));
  }
  for (const span of spans.spans) {
    const children = childrenOf(spans, span);
    const own = span.kind === 'model' ? 15 : 0;
    expect(span.tokens.total, `${span.kind} ${span.name}`).toBe(own + children.reduce((t, c) => t + c.tokens.total, 0));
  }
}

describe('GET /api/runs/:runId/spans', () => {
  it('nests a report run: nodes under the run, model and tool calls under the node, the MCP request under its tool call; tokens add up', async () => {
    const spans = await spansOf('Query the September 2026 sales report and tell me revenue and order volume.');
    expectNested(spans);
    const [run] = spans.spans;
    expect(run).toMatchObject({ kind: 'run', name: 'customer-service', parentId: null, depth: 0, startMs: 0, status: 'ok' });
    expect(childrenOf(spans, run!).map((s) => `${s.kind}:${s.name}`)).toEqual(['node:ingest', 'node:classify', 'node:report_mcp', 'node:draft', 'node:review', 'node:finish']);
    const report = spans.spans.find((s) => s.name === 'report_mcp')!;
    expect(childrenOf(spans, report).map((s) => s.kind)).toEqual(['model', 'tool', 'model']);
    expect(childrenOf(spans, report).filter((s) => s.kind === 'model').map((s) => s.name)).toEqual(['report · openai:gpt-test #1', 'report · openai:gpt-test #2']);
    const tool = childrenOf(spans, report).find((s) => s.kind === 'tool')!;
    expect(tool).toMatchObject({ name: 'query_sales_report', status: 'ok' });
    expect(childrenOf(spans, tool)).toMatchObject([{ kind: 'mcp', name: 'tools/call query_sales_report', status: 'ok', tokens: { total: 0 } }]);
    // classify, then the report agent's two turns: three model calls, 45 tokens.
    expect(spans).toMatchObject({ modelCalls: 3, toolCalls: 1, mcpCalls: 1, tokens: { input: 30, output: 15, total: 45 }, status: 'completed' });
    expect(run!.tokens).toEqual(spans.tokens);
    expect(report.tokens.total).toBe(30);
    expect(run!.durationMs).toBe(spans.durationMs);
  });

  it('puts each specialist of a multi-part request under the node that dispatched it, with its own nodes, tools and tokens', async () => {
    const spans = await spansOf('Explain the headphone return policy, the refundable amount for SO20261001, and the September sales report.');
    expectNested(spans);
    const dispatch = spans.spans.find((s) => s.kind === 'node' && s.name === 'specialist')!;
    const specialists = childrenOf(spans, dispatch);
    expect(specialists.map((s) => s.kind)).toEqual(['specialist', 'specialist', 'specialist']);
    expect(specialists.map((s) => s.path).sort()).toEqual(['root/rag[1]', 'root/report[3]', 'root/tool[2]']);
    expect(specialists.map((s) => s.name).sort()).toEqual(['rag[1] · rag', 'report[3] · report', 'tool[2] · tool']);
    for (const specialist of specialists) {
      expect(specialist.status).toBe('ok');
      expect(childrenOf(spans, specialist).length).toBeGreaterThan(0);
      expect(childrenOf(spans, specialist).every((s) => s.kind === 'node' && s.path === specialist.path)).toBe(true);
    }
    const report = specialists.find((s) => s.path === 'root/report[3]')!;
    const reportNode = childrenOf(spans, report)[0]!;
    expect(childrenOf(spans, reportNode).find((s) => s.kind === 'tool')).toMatchObject({ name: 'query_sales_report' });
    expect(spans.spans.filter((s) => s.kind === 'mcp' && s.path === 'root/report[3]')).toHaveLength(1);
    // The dispatching node's tokens are its specialists' (it calls no model itself).
    expect(dispatch.tokens.total).toBe(specialists.reduce((t, s) => t + s.tokens.total, 0));
    expect(dispatch.tokens.total).toBeGreaterThan(0);
    expect(spans.tokens.total).toBe(15 * spans.modelCalls);
  });

  it('gives the spans of a run as it was recorded live and as it was stored alike', async () => {
    const live = new MemoryRecorder();
    const run = await wb.runs.manager.start('customer-service', 'Check order SO20261001 for me and see how much can still be refunded.', { recorders: [live] });
    expect(run.status).toBe('completed');
    const stored = RunSpansJson.parse((await wb.json(`/api/runs/${run.runId}/spans`)).body);
    expect(stored).toEqual(runSpans(run.runId, live.events, 'completed'));
    // Node-run tools (the order loop's tool_execute) are spans too.
    expect(stored.spans.filter((s) => s.kind === 'tool').map((s) => s.name)).toEqual(['lookup_order', 'calculate_refund']);
    expect(stored.spans.filter((s) => s.kind === 'tool').every((s) => stored.spans.find((p) => p.id === s.parentId)?.name === 'tool_execute')).toBe(true);
  });

  it('shows a run waiting at a human node as waiting, and the same bars ended once the reply let it finish', async () => {
    const started = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'refund-approval', message: 'Refund SO20261001 please' } });
    const runId = started.body.runId as string;
    const waiting = RunSpansJson.parse((await wb.json(`/api/runs/${runId}/spans`)).body);
    expect(waiting.status).toBe('waiting');
    expect(waiting.spans.map((s) => `${s.kind}:${s.name}:${s.status}`)).toEqual(['run:refund-approval:waiting', 'node:draft:ok', 'node:approve:waiting']);
    await wb.json(`/api/runs/${runId}/resume?wait=true`, { method: 'POST', json: { reply: 'approved' } });
    const done = RunSpansJson.parse((await wb.json(`/api/runs/${runId}/spans`)).body);
    expect(done.status).toBe('completed');
    const approve = done.spans.find((s) => s.name === 'approve')!;
    expect(approve.status).toBe('ok');
    // The human node's bar covers the wait: it starts where it started before the reply.
    expect(approve.startMs).toBe(waiting.spans[2]!.startMs);
    expect(done.spans[0]).toMatchObject({ kind: 'run', status: 'ok' });
    expectNested(done);
  });

  it('answers not_found for an unknown run', async () => {
    const got = await wb.json('/api/runs/no-such-run/spans');
    expect(got.status).toBe(404);
    expect(got.body.error.code).toBe('run_not_found');
  });
});
