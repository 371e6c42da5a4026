import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { createServer, type ServerOptions, type Workbench } from './createServer.js';
import { ServerError } from './ServerError.js';
import { isLoopbackHost } from './tokenAuth.js';
import { isWildcardAddress } from './HostAllowList.js';

/** Options for {@link startServer}. */
export interface StartServerOptions extends ServerOptions {
  /** Default 4317; 0 picks a free port. */
  port?: number;
  /** Default `127.0.0.1`. Any other host than loopback requires `token`; it is added to `allowedHosts`. */
  host?: string;
}

/** A listening workbench. */
export interface RunningServer extends Workbench {
  /** The page's URL, e.g. `http://127.0.0.1:4317/`. */
  url: string;
  port: number;
  host: string;
  /** What to tell the user at start (where it listens, whether a token is required). */
  notices: string[];
  /**
   * Stops listening, ends open streams and waits for running legs (up to `timeoutMs`, default 10 s;
   * the store stays open). Rejects with a `DrainTimeoutError` naming the runs still running if they
   * have not all ended by then; the server has stopped listening either way.
   */
  stop(timeoutMs?: number): Promise<void>;
}

/** The default port of `switchboard serve`. */
export const DEFAULT_PORT = 4317;

/**
 * Creates the workbench and listens. Binds 127.0.0.1 by default; on any other host it refuses to
 * start without a token (a `server_config` ServerError), since the API starts runs and shows their
 * data.
 *
 * @example
 * const server = await startServer({ store, graphs, port: 0 });
 * const url = server.url; // http://127.0.0.1:<port>/
 * await server.stop();
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token === '' ? undefined : options.token;
  const loopback = isLoopbackHost(host);
  if (!loopback && token === undefined) {
    throw new ServerError(
      `refusing to listen on ${host} without a token: anyone who can reach it could start and read runs; set SWITCHBOARD_TOKEN, or bind 127.0.0.1 (the default)`,
      { code: 'server_config' },
    );
  }
  // The bound address is a name clients use; a wildcard (0.0.0.0) names nothing, so names come from allowedHosts.
  const allowedHosts = [...(options.allowedHosts ?? []), ...(isWildcardAddress(host) ? [] : [host])];
  const workbench = createServer({ ...options, allowedHosts, ...(token === undefined ? {} : { token }) });
  const server = createAdaptorServer({ fetch: workbench.app.fetch, hostname: host }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new ServerError(`cannot listen on ${host}:${options.port ?? DEFAULT_PORT}: ${error.code ?? error.message}; pick another --port or --host`, { code: 'server_config', cause: error })),
    );
    server.listen(options.port ?? DEFAULT_PORT, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${port}/`;
  const notices = [`Switchboard workbench on ${url}`];
  if (token !== undefined) {
    notices.push('a token is required (SWITCHBOARD_TOKEN): send "Authorization: Bearer <token>", or open the page as ' + `${url}?token=<token>`);
  } else {
    notices.push('no token required: listening on loopback only (set SWITCHBOARD_TOKEN to require one)');
  }
  return {
    ...workbench,
    url,
    port,
    host,
    notices,
    stop: async (timeoutMs) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await workbench.close(timeoutMs);
    },
  };
}
