import http from 'node:http';
import type { Socket } from 'node:net';
import { createInspectorServer } from '@statelyai/inspect/server';
import { SwitchboardError } from '../errors/SwitchboardError.js';

/** A running `@statelyai/inspect` inspector server. */
export interface InspectorServer {
  host: string;
  port: number;
  /** The page to open in a browser (it embeds Stately's hosted viewer). */
  url: string;
  /** Where inspectors send their events and viewers receive them. */
  wsUrl: string;
  /** Resolves once `count` WebSocket clients have connected so far (the run's inspector counts as one). */
  connections(count: number): Promise<void>;
  /** Stops the server and closes every connection. */
  stop(): Promise<void>;
}

/**
 * Starts `@statelyai/inspect`'s inspector server (`createInspectorServer`: a page that embeds the
 * hosted Stately viewer, and a WebSocket relay that replays its last 200 messages to each new
 * viewer) bound to `host` only. The library listens on every interface and offers no host
 * option, so the one `http.Server` it creates, during that synchronous call, gets a `listen` that
 * binds `host` and an `emit` that turns a failed `listen` (port in use) into a rejection instead of
 * an uncaught error. It never opens a browser.
 */
export async function startInspectorServer(options: { port: number; host?: string }): Promise<InspectorServer> {
  const host = options.host ?? '127.0.0.1';
  const { port } = options;
  let server: http.Server | undefined;
  let listening = false;
  let failed: (error: Error) => void = () => {};
  const sockets = new Set<Socket>();
  let connected = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];

  const create = http.createServer;
  const wrapped = (...args: Parameters<typeof http.createServer>) => {
    const created = create(...args);
    const listen = created.listen.bind(created);
    created.listen = ((p: number, callback?: () => void) => listen(p, host, callback)) as typeof created.listen;
    const emit = created.emit.bind(created);
    created.emit = ((name: string, ...rest: unknown[]) => {
      if (name === 'error') {
        failed(rest[0] as Error);
        return true;
      }
      return emit(name, ...rest);
    }) as typeof created.emit;
    created.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    created.on('upgrade', () => {
      connected += 1;
      for (const waiter of waiters.filter((w) => w.count <= connected)) waiter.resolve();
    });
    server = created;
    return created;
  };
  let handle: { stop(): void };
  (http as { createServer: unknown }).createServer = wrapped;
  try {
    handle = createInspectorServer({ port, autoOpen: false });
  } finally {
    (http as { createServer: unknown }).createServer = create;
  }
  const stop = async () => {
    handle.stop();
    for (const socket of sockets) socket.destroy();
    if (listening) await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
  };
  await new Promise<void>((resolve, reject) => {
    failed = (error) => {
      if (listening) return;
      handle.stop();
      const code = (error as NodeJS.ErrnoException).code;
      reject(
        new SwitchboardError(
          `cannot start the inspector server on ${host}:${port} (${code ?? error.message}); ${code === 'EADDRINUSE' ? 'pass a free port with --port' : 'check the host and port'}`,
          { code: 'inspector_unavailable', fault: 'user', retryable: code === 'EADDRINUSE', cause: error },
        ),
      );
    };
    server?.once('listening', () => {
      listening = true;
      resolve();
    });
  });
  return {
    host,
    port,
    url: `http://${host}:${port}`,
    wsUrl: `ws://${host}:${port}`,
    connections: (count) =>
      new Promise<void>((resolve) => {
        if (connected >= count) resolve();
        else waiters.push({ count, resolve });
      }),
    stop,
  };
}
