import { describe, expect, it } from 'vitest';
import { OfflineModel, StateGraph, ToolError, type NodeOutput } from 'switchboard';
import { ScriptedModel } from 'switchboard/testing';
import { ASK_FOR_PERIOD, openSalesReportClient, querySalesReport, reportGraph, reportMcpNode, salesReportService } from '../../../specialists/index.js';

const SEPTEMBER = 'Query the September 2026 sales report and tell me revenue and order volume.';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the sales report MCP server over stdio', () => {
  it('lists query_sales_report and answers 2026-09 through tools/call', async () => {
    const answer = await querySalesReport('2026-09');
    expect(answer.tools).toEqual(['query_sales_report']);
    expect(answer.result).toMatchObject({ found: true, revenue: 1_286_000, orders: 4_268, revenueGrowthPercent: 12.81 });
    expect(answer.text).toContain('1,286,000');
  });

  it('answers an unknown period with the available ones, refuses a malformed one, and ends the process on close', async () => {
    const client = await openSalesReportClient();
    const pid = client.pid!;
    try {
      expect(alive(pid)).toBe(true);
      const unknown = await client.query('2026-10');
      expect(unknown.result).toEqual({ found: false, period: '2026-10', availablePeriods: ['2026-07', '2026-08', '2026-09'] });
      expect(unknown.text).toBe('There is no sales report for 2026-10. Available periods: 2026-07, 2026-08, 2026-09.');
      const refused = await client.query('2026-9').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ToolError);
      expect(refused).toMatchObject({ code: 'invalid_tool_arguments', retryable: false });
      expect((refused as Error).message).toContain('a period is YYYY-MM, e.g. 2026-09');
    } finally {
      await client.close();
    }
    // The process ends on its own after close; how soon depends on the machine's load, so wait for it
    // (a process that never ends times the test out).
    while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
  });

  it('fails a call the server does not answer in time as a retryable tool_timeout, and ends that server', async () => {
    const client = await openSalesReportClient();
    const pid = client.pid!;
    process.kill(pid, 'SIGSTOP');
    try {
      const error = await client.query('2026-09', { timeoutMs: 1_000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ToolError);
      expect(error).toMatchObject({ code: 'tool_timeout', retryable: true });
      expect((error as Error).message).toContain('did not answer query_sales_report within 1000 ms');
      expect(client.connected).toBe(false);
      while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGCONT');
      await client.close();
    }
  }, 60_000);

  it('rejects with a retryable ToolError when the server cannot be reached', async () => {
    const error = await openSalesReportClient({ signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ retryable: true, message: expect.stringMatching(/^sales report MCP server did not start/) });
  });
});

describe('reportGraph (report)', () => {
  it('answers September 2026 offline with revenue, order volume and growth', async () => {
    const graph = reportGraph({ model: new OfflineModel() });
    expect(graph.name).toBe('report');
    const run = await graph.run(SEPTEMBER);
    expect(run.status).toBe('completed');
    expect(run.path).toEqual(['report_mcp']);
    for (const figure of ['1,286,000', '4,268', '12.81%']) expect(run.outputText).toContain(figure);
    expect(run.state.get('period')).toBe('2026-09');
    expect(run.state.get('reportTools')).toEqual(['query_sales_report']);
    expect(run.state.get('report')).toMatchObject({ found: true, period: '2026-09' });
    expect(run.state.get('reportAnswer')).toBe(run.outputText);
  });

  it('lets an injected model choose the call and write the answer', async () => {
    const model = new ScriptedModel([
      { expectAgent: 'report', expectTools: ['query_sales_report'], toolCalls: [{ name: 'query_sales_report', arguments: { period: '2026-08' } }] },
      { text: 'August 2026: revenue 1,140,000 on 3,905 orders.' },
    ]);
    const run = await reportGraph({ model }).run('How did the shop do in August 2026?');
    model.assertDone();
    expect(run.outputText).toBe('August 2026: revenue 1,140,000 on 3,905 orders.');
    expect(run.state.get('report')).toMatchObject({ found: true, revenue: 1_140_000 });
    const observation = model.requests[1]!.messages.at(-1)!;
    expect(observation).toMatchObject({ role: 'tool', name: 'query_sales_report' });
    expect(observation.content).toContain('"revenueGrowthPercent":8.37');
  });

  it('asks for the month, spawning nothing, when the request names none', async () => {
    const run = await reportGraph({ model: new OfflineModel() }).run('Show me the sales report.');
    expect(run.outputText).toBe(ASK_FOR_PERIOD);
    expect(run.state.get('reportTools')).toBeUndefined();
  });

  it('reports no unavailable service when its run is stopped while the server starts', async () => {
    // A run stopped (cancelled, out of time) while the shared server was starting is not a server
    // failure: nothing may tell the person who takes over that the sales report service is down.
    await salesReportService().close();
    const node = reportMcpNode({ model: new OfflineModel() });
    const controller = new AbortController();
    let settled: Promise<NodeOutput> | undefined;
    const graph = new StateGraph({ name: 'report' })
      .addNode('report_mcp', {
        name: 'report_mcp',
        execute: (ctx, request) => {
          settled = Promise.resolve(node.execute(ctx, request));
          controller.abort(); // the node now waits for the server to start
          return settled;
        },
      })
      .start('report_mcp');
    const run = await graph.run(SEPTEMBER, { signal: controller.signal });
    expect(run.status).toBe('cancelled');
    // The node stops with its run, whatever it was waiting on.
    await expect(settled).rejects.toBeDefined();
    for (const key of ['reportError', 'handoff', 'reportAnswer']) expect(run.state.get(key), key).toBeUndefined();
  });

  it('uses the period classify wrote to state over the one in the text', async () => {
    const run = await reportGraph({ model: new OfflineModel() }).run('and the month before?', { state: { period: '2026-10' } });
    expect(run.outputText).toBe('There is no sales report for 2026-10. Available periods: 2026-07, 2026-08, 2026-09.');
  });
});
