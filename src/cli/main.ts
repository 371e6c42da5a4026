import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { RunManager } from '../graph/durable/RunManager.js';
import type { RunQueue } from '../queue/RunQueue.js';
import type { CliContext } from './CliContext.js';
import { commandsFor } from './commandModules.js';
import type { GraphsModule } from './loadGraphs.js';
import { packageUrl } from './packageUrl.js';
import { EXIT, EXIT_CODES_HELP } from './exitCodes.js';
import { reportError } from './reportError.js';
import { terminalText } from './terminalText.js';
import { colourEnabled, colourText } from './colour.js';

function version(): string {
  return (JSON.parse(readFileSync(packageUrl('package.json'), 'utf8')) as { version: string }).version;
}

/** Whether `flag` is among the options (before a `--` that ends them). */
function hasFlag(argv: readonly string[], flag: string): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes(flag);
}

/**
 * Runs the CLI with the given arguments and resolves to the process exit code (see `EXIT`): 0
 * completed, 1 failed / cancelled / aborted / max-steps / budget-exceeded, 2 usage error, 3 waiting for a reply.
 */
export async function main(argv: string[]): Promise<number> {
  let manager: RunManager | null = null;
  let queue: Promise<RunQueue | null> | null = null;
  let loaded: Promise<GraphsModule> | null = null;
  let exitCode: number = EXIT.ok;
  // Known before parsing, so that even a usage error is reported the way the caller asked.
  const json = hasFlag(argv, '--json');
  const debug = hasFlag(argv, '--debug');
  // Colour only for people: on a terminal (or FORCE_COLOR), never under NO_COLOR or --json.
  const colourOut = !json && colourEnabled(process.stdout, process.env);
  const colourErr = !json && colourEnabled(process.stderr, process.env);
  const program = new Command('switchboard')
    .description('Multi-agent workflows as XState statecharts')
    .version(version(), '-v, --version')
    .option('--graphs <module>', 'module exporting `graphs` (default: machines/index.ts; env SWITCHBOARD_GRAPHS)')
    .option('--db <file>', 'SQLite file for stored runs (default: .switchboard/switchboard.db; env SWITCHBOARD_DB)')
    .option('--debug', 'print stack traces of errors')
    .addHelpText('after', EXIT_CODES_HELP)
    .showHelpAfterError(!json)
    // Commander's own errors quote the command line, so they are escaped too; under --json an error
    // is one JSON object on stderr (written by reportError) instead.
    .configureOutput({ writeErr: (text) => process.stderr.write(colourErr ? colourText(terminalText(text)) : terminalText(text)), ...(json ? { outputError: () => undefined } : {}) })
    .exitOverride();
  // The engine, the store and the graphs are imported on first use: `--version`, `--help` and a
  // usage error never load them.
  const graphsModule = () => (loaded ??= import('./loadGraphs.js').then((m) => m.loadGraphsModule(program.opts<{ graphs?: string }>().graphs)));
  const cli: CliContext = {
    out: (text) => process.stdout.write(`${colourOut ? colourText(terminalText(text)) : terminalText(text)}\n`),
    err: (text) => process.stderr.write(`${colourErr ? colourText(terminalText(text)) : terminalText(text)}\n`),
    setExitCode: (code) => {
      exitCode = code;
    },
    graphs: async () => (await graphsModule()).graphs,
    runs: async () => {
      if (manager === null) {
        const opts = program.opts<{ db?: string }>();
        const loaded = await cli.graphs();
        const [{ RunManager }, { createStoreFromEnv }] = await Promise.all([import('../graph/durable/RunManager.js'), import('../persistence/createStoreFromEnv.js')]);
        const store = createStoreFromEnv(opts.db === undefined ? process.env : { ...process.env, SWITCHBOARD_DB: opts.db });
        manager = new RunManager({ store, graphs: loaded });
      }
      return manager;
    },
    queue: () =>
      (queue ??= (async () => {
        const { queueConfigured, queueFromEnv } = await import('../queue/queueFromEnv.js');
        if (!queueConfigured()) return null;
        const runs = await cli.runs();
        return queueFromEnv(runs.store, await cli.graphs());
      })()),
    graphsModule,
    interrupted: () =>
      new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      }),
  };
  try {
    for (const addCommands of await commandsFor(argv)) addCommands(program, cli);
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(error, { json, debug, err: cli.err });
  } finally {
    await (await (queue as Promise<RunQueue | null> | null)?.catch(() => null))?.close();
    await (manager as RunManager | null)?.store.close();
  }
}
