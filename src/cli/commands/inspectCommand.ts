import { setTimeout as sleep } from 'node:timers/promises';
import { createWebSocketInspector, type StatelyInspectionEvent } from '@statelyai/inspect';
import type { Command } from 'commander';
import { UsageError } from '../../errors/UsageError.js';
import { redactForOutput, secretValues } from '../../trace/redact.js';
import type { CliContext } from '../CliContext.js';
import { startInspectorServer } from '../inspectorServer.js';
import { findGraph } from './findGraph.js';
import { printRun } from './runCommands.js';
import { parseInput } from '../../input/parseInput.js';
import { MessageText, ReplyText } from '../../input/RunText.js';

/** The inspector server's default port (the one `@statelyai/inspect` uses). */
export const DEFAULT_INSPECT_PORT = 8080;

function parsePort(text: string): number {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new UsageError(`--port must be an integer from 1 to 65535; received "${text}"`);
  return port;
}

/**
 * Contexts hold the run's state: keys, credentials and image bytes are stripped before an event
 * leaves. An event with a value that cannot be read keeps only its identity.
 */
function redactInspection(event: StatelyInspectionEvent, secrets: readonly string[]): StatelyInspectionEvent {
  try {
    return redactForOutput(event, secrets) as StatelyInspectionEvent;
  } catch {
    const { type, sessionId, rootId, createdAt, id, _version } = event;
    return { type, sessionId, rootId, createdAt, id, _version, snapshot: { status: 'active' }, event: { type: '[unreadable]' } } as unknown as StatelyInspectionEvent;
  }
}

/**
 * `inspect <message>`: runs a registered graph (stored, like `start`) with the Stately inspector
 * attached. Starts `@statelyai/inspect`'s server on 127.0.0.1, prints the page to open, waits for a
 * viewer to connect (unless `--no-wait`), runs, answers a human node with `--reply`, and keeps
 * serving until Ctrl-C (unless `--exit`). Inspection events are redacted before they are sent.
 */
export function addInspectCommand(program: Command, cli: CliContext): void {
  program
    .command('inspect <message>')
    .description('run a graph with the Stately inspector: starts its server on 127.0.0.1 and prints the URL to open')
    .option('--graph <name>', 'a registered graph (default: the first one --graphs lists)')
    .option('--port <port>', 'port of the inspector server', String(DEFAULT_INSPECT_PORT))
    .option('--reply <text>', 'if the run waits for a human, resume it with this reply')
    .option('--no-wait', 'start the run at once instead of waiting for a viewer to connect')
    .option('--exit', 'stop the server once the run is done (default: serve until Ctrl-C)')
    .action(async (text: string, opts: { graph?: string; port: string; reply?: string; wait: boolean; exit?: boolean }) => {
      const message = parseInput(MessageText, text);
      const reply = opts.reply === undefined ? undefined : parseInput(ReplyText, opts.reply, '--reply');
      const port = parsePort(opts.port);
      const graph = findGraph(await cli.graphs(), opts.graph);
      const runs = await cli.runs();
      const interrupted = cli.interrupted();
      const server = await startInspectorServer({ port });
      const secrets = secretValues();
      const inspector = createWebSocketInspector({
        url: server.wsUrl,
        maxDeferredEvents: 10_000,
        serialize: (event) => redactInspection(event, secrets),
      });
      const controller = new AbortController();
      void interrupted.then(() => controller.abort());
      try {
        cli.out(`Stately inspector for graph "${graph.name}": open ${server.url}`);
        cli.out('The page embeds the hosted Stately viewer (https://stately.ai/inspect), so the browser needs internet access.');
        const stopped = interrupted.then(() => false);
        // The run's own inspector is the first connection; a viewer is the second.
        const viewers = opts.wait ? 2 : 1;
        if (opts.wait) cli.out('Waiting for the viewer to connect (Ctrl-C to stop)…');
        if (!(await Promise.race([server.connections(viewers).then(() => true), stopped]))) return;
        const inspect = inspector.inspect;
        let run = await runs.start(graph.name, message, { inspect, signal: controller.signal });
        printRun(cli, run, false);
        if (run.status === 'waiting' && reply !== undefined) {
          run = await runs.resume(run.runId, { reply }, { inspect, signal: controller.signal });
          printRun(cli, run, false);
        } else if (run.status === 'waiting') {
          cli.out(`resume it with: switchboard resume ${run.runId} --reply "<text>" (or inspect again with --reply)`);
        }
        // Inspection events are sent on timers after the step that made them.
        await sleep(250);
        if (opts.exit === true || controller.signal.aborted) return;
        cli.out(`Serving the inspector at ${server.url} until Ctrl-C.`);
        await interrupted;
      } finally {
        inspector.stop();
        await server.stop();
      }
    });
}
