import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { UsageError } from '../../errors/UsageError.js';
import { DrainTimeoutError } from '../../server/DrainTimeoutError.js';
import { DEFAULT_PORT, startServer } from '../../server/startServer.js';
import type { CliContext } from '../CliContext.js';

/** Resolves when the process is asked to stop (SIGINT, SIGTERM). */
function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(signal);
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
}

/** `serve`: the workbench page and HTTP API over the stored runs, until Ctrl-C. */
export function addServeCommand(program: Command, cli: CliContext): void {
  program
    .command('serve')
    .description('serve the workbench page and HTTP API (runs, events over SSE, machine definitions)')
    .option('--port <n>', `port to listen on (0: any free port)`, String(DEFAULT_PORT))
    .option('--host <host>', 'address to bind; anything but loopback requires SWITCHBOARD_TOKEN', '127.0.0.1')
    .action(async (opts: { port: string; host: string }) => {
      const port = /^[0-9]{1,5}$/.test(opts.port) ? Number(opts.port) : NaN;
      if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port must be an integer from 0 to 65535; received "${opts.port}"`);
      const manager = await cli.runs();
      const module = await cli.graphsModule();
      const token = process.env.SWITCHBOARD_TOKEN;
      // The distributed mode (SWITCHBOARD_REDIS_URL): runs go to the queue and workers run them.
      const queue = await cli.queue();
      const server = await startServer({
        store: manager.store,
        graphs: module.graphs,
        scenarios: module.scenarios,
        faults: module.faults,
        models: module.models,
        scenarioRoot: module.url.protocol === 'file:' ? dirname(fileURLToPath(module.url)) : process.cwd(),
        port,
        host: opts.host,
        ...(token ? { token } : {}),
        log: cli.err,
        ...(queue === null ? {} : { queue }),
      });
      for (const notice of server.notices) cli.out(notice);
      if (queue !== null) cli.out(`runs go to the queue "${queue.name}" at ${queue.redisUrl}: start workers with \`switchboard worker\``);
      const signal = await untilStopped();
      cli.out(`${signal}: stopping (runs waiting for a reply stay stored)`);
      try {
        await server.stop(5_000);
      } catch (error) {
        if (!(error instanceof DrainTimeoutError)) throw error;
        // Stopping anyway: those runs stay stored as running and are continued from their last checkpoint later.
        cli.err(`stopping with ${error.message}; \`switchboard recover\` continues them from their last checkpoint`);
      }
    });
}
