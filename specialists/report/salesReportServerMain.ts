/**
 * Entry point of the sales report MCP server over stdio. The client spawns the compiled module with
 * plain Node (`node dist/specialists/report/salesReportServerMain.js`), or this source through tsx
 * when the client itself runs from the sources; it can also be run by hand or registered with any
 * MCP client:
 *
 *   node --import tsx specialists/report/salesReportServerMain.ts
 *
 * stdout carries the protocol, so nothing else is ever written to it.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createSalesReportServer } from './createSalesReportServer.js';

const server = createSalesReportServer();
await server.connect(new StdioServerTransport());
