import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ToolError } from 'switchboard/engine';
import { SALES_REPORT_TOOL, SalesReportResult } from './salesReport.js';

/** Whether this module runs from the TypeScript sources (then the server does too, through tsx). */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** The server entry, resolved next to this module so any working directory works (compiled JS when this module is). */
export const SALES_REPORT_SERVER_ENTRY = fileURLToPath(new URL(FROM_SOURCE ? './salesReportServerMain.ts' : './salesReportServerMain.js', import.meta.url));

/** Options for {@link openSalesReportClient} and {@link querySalesReport}. */
export interface SalesReportClientOptions {
  signal?: AbortSignal;
  /** Per MCP request (connect, `tools/list`, `tools/call`), in ms (default 20 000). */
  timeoutMs?: number;
}

/** The answer of one `tools/call`. */
export interface SalesReportAnswer {
  /** The `structuredContent` of the result. */
  result: SalesReportResult;
  /** The text content of the result. */
  text: string;
  /** The request as it went over the wire: its JSON-RPC id and the MCP protocol version in use. */
  call: McpCallInfo;
}

/** What a trace says about one MCP request (see the MCP semantic conventions). */
export interface McpCallInfo {
  method: 'tools/call';
  /** The JSON-RPC id of the request, when it was sent. */
  requestId: string | null;
  protocolVersion: string | null;
  /** `pipe`: the server runs over stdio. */
  transport: 'pipe';
}

/** A connected sales report server: the tools it listed, a way to query it, and `close()` (ends the child process). */
export interface SalesReportClient {
  /** The tool names `tools/list` reported. */
  readonly tools: string[];
  /** The server's process id. */
  readonly pid: number | null;
  /** False once the server process has ended (closed, killed or crashed) or has let a call time out (it is then ended). */
  readonly connected: boolean;
  /** Calls `query_sales_report({ period })` with `tools/call` (`signal` aborts this call only; `timeoutMs` defaults to the client's). */
  query(period: string, options?: SalesReportClientOptions): Promise<SalesReportAnswer>;
  /** The negotiated MCP protocol version. */
  readonly protocolVersion: string | null;
  /**
   * Whether the server keeps this process alive (default true). With false, an idle connection lets
   * the process end, and the server ends with it; a call in flight always holds the process.
   */
  keepProcessAlive(on: boolean): void;
  close(): Promise<void>;
}

/** The compiled server runs on plain Node; from the sources, through tsx (found from this package). */
function serverArgs(): string[] {
  if (!FROM_SOURCE) return [SALES_REPORT_SERVER_ENTRY];
  return ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, SALES_REPORT_SERVER_ENTRY];
}

/**
 * Spawns the sales report MCP server over stdio, connects and lists its tools (`tools/list`). A
 * server that does not start or lacks `query_sales_report` rejects with a retryable `ToolError`
 * carrying the tail of its stderr. The MCP client SDK is imported on first use. Always `close()` it
 * (or use the process-wide {@link salesReportService}).
 *
 * @example
 * const client = await openSalesReportClient();
 * try { (await client.query('2026-09')).text; } finally { await client.close(); }
 */
export async function openSalesReportClient(options: SalesReportClientOptions = {}): Promise<SalesReportClient> {
  const [{ Client }, { ErrorCode, McpError }, { StdioChildTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('./StdioChildTransport.js'),
  ]);
  const transport = new StdioChildTransport(process.execPath, serverArgs());
  const client = new Client({ name: 'switchboard-report-mcp', version: '0.1.0' });
  const timeout = options.timeoutMs ?? 20_000;
  const requestOptions = { timeout, ...(options.signal === undefined ? {} : { signal: options.signal }) };
  let connected = true;
  let keepAlive = true;
  let inFlight = 0;
  client.onclose = () => {
    connected = false;
  };
  const fail = (what: string, cause?: unknown): ToolError => {
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    const tail = transport.stderr.trim() === '' ? '' : ` (server stderr: ${transport.stderr.trim().slice(-300)})`;
    return new ToolError(`sales report MCP server ${what}${detail}${tail}`, { code: 'tool_failed', retryable: true, cause });
  };
  const close = () => client.close().catch(() => {});
  let tools: string[];
  try {
    await client.connect(transport, requestOptions);
    tools = (await client.listTools(undefined, requestOptions)).tools.map((t) => t.name);
  } catch (error) {
    await close();
    throw fail('did not start', error);
  }
  if (!tools.includes(SALES_REPORT_TOOL)) {
    await close();
    throw fail(`does not offer ${SALES_REPORT_TOOL} (it lists ${tools.join(', ') || 'no tools'})`);
  }
  return {
    tools,
    pid: transport.pid,
    get connected() {
      return connected;
    },
    keepProcessAlive(on) {
      keepAlive = on;
      if (inFlight === 0) (on ? transport.ref() : transport.unref());
    },
    close,
    get protocolVersion() {
      return transport.protocolVersion;
    },
    async query(period, callOptions = {}) {
      if (inFlight++ === 0 && !keepAlive) transport.ref();
      let called: Awaited<ReturnType<typeof client.callTool>>;
      const call: McpCallInfo = { method: 'tools/call', requestId: null, protocolVersion: transport.protocolVersion, transport: 'pipe' };
      const callTimeout = callOptions.timeoutMs ?? timeout;
      try {
        transport.lastRequestId = null;
        const pending = client.callTool({ name: SALES_REPORT_TOOL, arguments: { period } }, undefined, { timeout: callTimeout, ...(callOptions.signal ? { signal: callOptions.signal } : {}) });
        // The request is written before callTool returns its promise: this is its id.
        call.requestId = transport.lastRequestId;
        called = await pending;
      } catch (error) {
        // The SDK reports an aborted call with the timeout's code too: only an unaborted one timed out.
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout && callOptions.signal?.aborted !== true) {
          // A server that lets a call time out has stopped answering (stopped, stuck): it is ended, so
          // that no later call waits on it (the service starts a new one) and it does not outlive
          // this process. Calls still waiting on it fail as on a crash.
          connected = false;
          transport.kill();
          throw new ToolError(`sales report MCP server did not answer ${SALES_REPORT_TOOL} within ${callTimeout} ms, so it was ended; the next call starts a new one`, {
            code: 'tool_timeout',
            retryable: true,
            cause: error,
          });
        }
        throw fail(`failed on ${SALES_REPORT_TOOL}`, error);
      } finally {
        if (--inFlight === 0 && !keepAlive) transport.unref();
      }
      const content = Array.isArray(called.content) ? (called.content as Array<{ type: string; text?: unknown }>) : [];
      const text = content.flatMap((c) => (c.type === 'text' && typeof c.text === 'string' ? [c.text] : [])).join('\n');
      if (called.isError === true) {
        // A refused argument (e.g. a malformed period) can be fixed by the caller, so it is not retryable.
        throw new ToolError(`${SALES_REPORT_TOOL}({ period: ${JSON.stringify(period)} }) was refused: ${text}`, { code: 'invalid_tool_arguments', retryable: false });
      }
      const result = SalesReportResult.safeParse(called.structuredContent);
      if (!result.success) throw fail(`answered ${SALES_REPORT_TOOL} without a readable report (${result.error.issues[0]?.message ?? 'invalid'})`);
      return { result: result.data, text, call };
    },
  };
}

/**
 * One round trip: spawns the server, `tools/list`, `tools/call` of `query_sales_report({ period })`,
 * then closes it. An unknown period is not an error: its result is `{ found: false, availablePeriods }`.
 *
 * @example
 * const { result } = await querySalesReport('2026-09');
 * result.found && result.revenueGrowthPercent; // 12.81
 */
export async function querySalesReport(period: string, options: SalesReportClientOptions = {}): Promise<SalesReportAnswer & { tools: string[] }> {
  const client = await openSalesReportClient(options);
  try {
    return { tools: client.tools, ...(await client.query(period, { ...options })) };
  } finally {
    await client.close();
  }
}
