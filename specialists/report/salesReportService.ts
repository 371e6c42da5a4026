import { ToolError } from 'switchboard/engine';
import { openSalesReportClient, type SalesReportAnswer, type SalesReportClient, type SalesReportClientOptions } from './salesReportClient.js';

/** The process's one connection to the sales report MCP server (see {@link salesReportService}). */
export interface SalesReportService {
  /**
   * The connected client: the running server, or a new one when none runs yet or the last one
   * ended. `signal` and `timeoutMs` (a retryable `tool_timeout`) bound this wait only; the server
   * keeps starting for the next caller, within the client's own limit (20 s).
   */
  connect(options?: SalesReportClientOptions): Promise<SalesReportClient>;
  /**
   * `query_sales_report({ period })` on the running server. If the server has died since it was
   * connected (killed, crashed) or lets the call time out (it is then ended), the call is made once
   * more on a new server; the tool only reads.
   */
  query(period: string, options?: SalesReportClientOptions): Promise<SalesReportAnswer>;
  /** The running server's process id, or null when none runs. */
  readonly pid: number | null;
  /** Ends the server; the next call starts a new one. */
  close(): Promise<void>;
}

/**
 * Resolves like `promise`, or rejects with the signal's reason once it aborts, or with a retryable
 * `tool_timeout` after `timeoutMs` (the promise runs on: the server keeps starting for the next caller).
 */
function waitFor<T>(promise: Promise<T>, signal: AbortSignal | undefined, timeoutMs: number | undefined): Promise<T> {
  if (signal === undefined && timeoutMs === undefined) return promise;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal!.reason);
    signal?.addEventListener('abort', abort, { once: true });
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => reject(new ToolError(`the sales report MCP server was not ready within ${timeoutMs} ms; it keeps starting for the next call`, { code: 'tool_timeout', retryable: true })), timeoutMs);
    promise.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    });
  });
}

function createSalesReportService(): SalesReportService {
  let opening: Promise<SalesReportClient> | null = null;
  let client: SalesReportClient | null = null;
  const connect = async (options: SalesReportClientOptions = {}): Promise<SalesReportClient> => {
    if (client !== null && client.connected) return client;
    client = null;
    if (opening === null) {
      // The server is everyone's: it starts within the client's own limit, not the first caller's
      // (a caller allowing 1 ms would make it fail for every caller waiting on it); each caller waits
      // as long as it allows (see waitFor).
      const started = openSalesReportClient();
      opening = started;
      started.then(
        (c) => {
          // An idle server never holds the process: a CLI run ends when its work does, and the server with it.
          c.keepProcessAlive(false);
          client = c;
          if (opening === started) opening = null;
        },
        () => {
          if (opening === started) opening = null;
        },
      );
    }
    return waitFor(opening, options.signal, options.timeoutMs);
  };
  return {
    connect,
    async query(period, options = {}) {
      const first = await connect(options);
      try {
        return await first.query(period, options);
      } catch (error) {
        if (first.connected || options.signal?.aborted) throw error;
        return (await connect(options)).query(period, options);
      }
    },
    get pid() {
      return client?.connected ? client.pid : null;
    },
    async close() {
      const ending = client ?? (opening ? await opening.catch(() => null) : null);
      client = null;
      await ending?.close();
    },
  };
}

let shared: SalesReportService | undefined;

/**
 * The sales report MCP server shared by everything in this process: started on first use (from
 * compiled JS when this package runs compiled), kept between calls, started again after it dies or
 * lets a call time out. An idle server does not keep the process alive and ends with it.
 *
 * @example
 * const { result } = await salesReportService().query('2026-09');
 */
export function salesReportService(): SalesReportService {
  return (shared ??= createSalesReportService());
}
