import { Agent, ToolError, createModelFromEnv, tool, type AgentNode, type Clock, type ModelClient } from 'switchboard/engine';
import { z } from 'zod';
import { parsePeriod } from './parsePeriod.js';
import { SALES_REPORT_TOOL, SalesPeriod, SalesReportResult, describeSalesReport } from './salesReport.js';
import { salesReportService } from './salesReportService.js';
import type { SalesReportClient } from './salesReportClient.js';
import { answerWith } from '../shared/answerWith.js';
import { requestHandoff } from '../shared/Handoff.js';
import { questionOf } from '../shared/questionOf.js';
import { specialistNode } from '../shared/specialistNode.js';

/** Options for {@link reportMcpNode}. */
export interface ReportMcpNodeOptions {
  /** Default: `createModelFromEnv()`; offline, the agent calls the tool once and reports its figures. */
  model?: ModelClient;
  /** Used for the year of a month named without one (default: the system clock). */
  clock?: Clock;
  /** Per MCP request, in ms (default 20 000). */
  timeoutMs?: number;
}

/** The report agent's system prompt. */
export const REPORT_INSTRUCTIONS =
  `You answer questions about the monthly sales report. Call ${SALES_REPORT_TOOL} with the period (YYYY-MM) the question asks about, ` +
  'then answer in English with the revenue, the order volume and the growth against the previous month exactly as reported, ' +
  'writing numbers with thousands separators (1,286,000) and growth with two decimals (12.81%).';

/** The text that asks for a missing period. */
export const ASK_FOR_PERIOD = 'Which month should the sales report cover? Name it like "September 2026" or 2026-09.';

/**
 * The `report_mcp` node: answers a sales-report question through the real MCP server. It uses the
 * process's one server connection ({@link salesReportService}: spawned over stdio on first use,
 * kept between runs, restarted after it dies), reports its tools, and lets the `report` agent call
 * `query_sales_report` (bridged to `tools/call`).
 *
 * Reads `period` (optional, from `classify`; `YYYY-MM`) or parses it from `question` ("September
 * 2026" → `2026-09`). Writes `period`, `reportTools` (from `tools/list`), `report` (the last
 * `SalesReportResult`; an unknown period gives `{ found: false, availablePeriods }`) and
 * `reportAnswer`; returns the answer text. With no period it asks for one and starts nothing. If
 * the server fails, it writes `reportError` and `handoff` = `{ reason: 'sales report service
 * unavailable', node: 'report_mcp' }` and returns a short apology; it never throws for that. A run
 * stopped while the server starts stops the node, which writes none of these.
 *
 * @example
 * graph.addNode('report_mcp', reportMcpNode({ model })).addEdge('report_mcp', 'draft');
 */
export function reportMcpNode(options: ReportMcpNodeOptions = {}): AgentNode {
  const model = options.model ?? createModelFromEnv();
  const clock = options.clock ?? { now: () => Date.now() };
  return specialistNode('report_mcp', async (ctx, request, emit) => {
    const question = questionOf(ctx, request);
    const period = SalesPeriod.safeParse(ctx.get('period')).data ?? parsePeriod(question, { defaultYear: new Date(clock.now()).getUTCFullYear() });
    if (period === undefined) {
      ctx.put('reportAnswer', ASK_FOR_PERIOD);
      return ASK_FOR_PERIOD;
    }
    ctx.put('period', period);
    const service = salesReportService();
    const callOptions = { signal: ctx.signal, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) };
    let tools: string[];
    let connected: SalesReportClient;
    let requests = 0;
    try {
      connected = await service.connect(callOptions);
      tools = connected.tools;
    } catch (error) {
      // Stopped with its run (cancelled, out of time) while the server was starting: no service failed.
      if (ctx.signal.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      ctx.put('reportError', { code: error instanceof ToolError ? error.code : 'tool_failed', message });
      requestHandoff(ctx, 'sales report service unavailable', 'report_mcp');
      const apology = 'The sales report service is unavailable right now, so a colleague will follow up with the figures.';
      ctx.put('reportAnswer', apology);
      return apology;
    }
    ctx.put('reportTools', tools);
    emit({ type: 'mcp.tools', tools });
    const query = tool({
      name: SALES_REPORT_TOOL,
      description: 'Revenue, order volume and growth against the previous month for one month (YYYY-MM).',
      parameters: z.object({ period: SalesPeriod.describe('The month, YYYY-MM, e.g. 2026-09') }),
      execute: async ({ period: asked }) => {
        // A trace shows the request as an MCP client span: `mcp.request` when it leaves, `mcp.call`
        // when it is answered or fails (the same `requestKey` pairs them).
        const requestKey = `${asked}#${++requests}`;
        const wire = { method: 'tools/call', tool: SALES_REPORT_TOOL, requestKey, transport: 'pipe' };
        emit({ type: 'mcp.request', ...wire, period: asked, protocolVersion: connected.protocolVersion });
        let answer: Awaited<ReturnType<typeof service.query>>;
        try {
          answer = await service.query(asked, callOptions);
        } catch (error) {
          const code = error instanceof ToolError ? error.code : 'tool_failed';
          emit({ type: 'mcp.call', ...wire, period: asked, ok: false, error: { code, message: error instanceof Error ? error.message : String(error) } });
          throw error;
        }
        ctx.put('report', answer.result);
        emit({ type: 'mcp.call', ...wire, ...answer.call, period: asked, ok: true, found: answer.result.found });
        return answer.result;
      },
    });
    const agent = new Agent({
      name: 'report',
      instructions: REPORT_INSTRUCTIONS,
      model,
      tools: [query],
      maxIterations: 3,
      offline: ({ toolResults }) => {
        const last = toolResults.at(-1);
        if (last === undefined) return { toolCalls: [{ name: SALES_REPORT_TOOL, arguments: { period } }] };
        const parsed = SalesReportResult.safeParse(last.output);
        return last.ok && parsed.success ? describeSalesReport(parsed.data) : `The sales report could not be read: ${last.error ?? 'unexpected answer'}.`;
      },
    });
    const answer = await answerWith(agent, `Question: ${question}\nPeriod: ${period}`, { signal: ctx.signal, workflow: ctx });
    ctx.put('reportAnswer', answer);
    return answer;
  });
}
