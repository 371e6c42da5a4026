import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { RunManager } from '../graph/durable/RunManager.js';
import { createStoreFromEnv } from '../persistence/createStoreFromEnv.js';
import { SwitchboardError } from '../errors/SwitchboardError.js';
import type { CliContext } from './CliContext.js';
import { addRunCommands } from './commands/runCommands.js';
import { addMainJobCommands } from './commands/mainJobCommands.js';
import { addServeCommand } from './commands/serveCommand.js';
import { addExportCommand } from './commands/exportCommand.js';
import { addInspectCommand } from './commands/inspectCommand.js';
import { loadGraphsModule, type GraphsModule } from './loadGraphs.js';

function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** Runs the CLI with the given arguments and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  let manager: RunManager | null = null;
  let loaded: Promise<GraphsModule> | null = null;
  const program = new Command('switchboard')
    .description('Multi-agent workflows as XState statecharts')
    .version(version(), '-v, --version')
    .option('--graphs <module>', 'module exporting `graphs` (default: machines/index.ts; env SWITCHBOARD_GRAPHS)')
    .option('--db <file>', 'SQLite file for stored runs (default: .switchboard/switchboard.db; env SWITCHBOARD_DB)')
    .showHelpAfterError()
    .exitOverride();
  const graphsModule = () => (loaded ??= loadGraphsModule(program.opts<{ graphs?: string }>().graphs));
  const cli: CliContext = {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    graphs: async () => (await graphsModule()).graphs,
    runs: async () => {
      if (manager === null) {
        const opts = program.opts<{ db?: string }>();
        const loaded = await cli.graphs();
        const store = createStoreFromEnv(opts.db === undefined ? process.env : { ...process.env, SWITCHBOARD_DB: opts.db });
        manager = new RunManager({ store, graphs: loaded });
      }
      return manager;
    },
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
  addMainJobCommands(program, cli);
  addRunCommands(program, cli);
  addServeCommand(program, cli);
  addInspectCommand(program, cli);
  addExportCommand(program, cli);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof SwitchboardError) {
      cli.err(`switchboard: ${error.message} [${error.code}]`);
      return 1;
    }
    throw error;
  } finally {
    await (manager as RunManager | null)?.store.close();
  }
}
