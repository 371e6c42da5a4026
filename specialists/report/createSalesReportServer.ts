import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SALES, SALES_REPORT_TOOL, SalesPeriod, describeSalesReport, salesReport } from './salesReport.js';

/**
 * The sales report MCP server (not yet connected to a transport): one tool,
 * `query_sales_report({ period: 'YYYY-MM' })`, answering with the month's text report and the
 * same figures as `structuredContent` (a `SalesReportResult`). `salesReportServerMain.ts`
 * serves it over stdio.
 *
 * @example
 * await createSalesReportServer().connect(new StdioServerTransport());
 */
export function createSalesReportServer(): McpServer {
  const server = new McpServer({ name: 'switchboard-sales-report', version: '0.1.0' });
  server.registerTool(
    SALES_REPORT_TOOL,
    {
      title: 'Query the monthly sales report',
      description: `Revenue, order volume and growth against the previous month for one month. Periods on record: ${SALES.map((s) => s.period).join(', ')}.`,
      inputSchema: { period: SalesPeriod.describe('The month, YYYY-MM, e.g. 2026-09') },
    },
    ({ period }) => {
      const result = salesReport(period);
      return { content: [{ type: 'text', text: describeSalesReport(result) }], structuredContent: result };
    },
  );
  return server;
}
