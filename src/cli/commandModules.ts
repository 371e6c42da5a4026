import type { Command } from 'commander';
import type { CliContext } from './CliContext.js';

/** Adds a group of subcommands (their options and actions) to the program. */
export type AddCommands = (program: Command, cli: CliContext) => void;

/** A module of subcommands: the names it defines and how to import it. */
interface CommandModule {
  names: readonly string[];
  load: () => Promise<AddCommands>;
}

/**
 * The subcommand modules in the order `--help` lists them. Each is imported only when its command
 * runs (or for `--help`, or for a name none of them lists), so a command pays only for what it uses.
 */
const COMMAND_MODULES: readonly CommandModule[] = [
  { names: ['run', 'scenarios'], load: async () => (await import('./commands/mainJobCommands.js')).addMainJobCommands },
  { names: ['start', 'runs', 'show', 'resume', 'recover', 'cancel'], load: async () => (await import('./commands/runCommands.js')).addRunCommands },
  { names: ['worker'], load: async () => (await import('./commands/workerCommand.js')).addWorkerCommand },
  { names: ['serve'], load: async () => (await import('./commands/serveCommand.js')).addServeCommand },
  { names: ['inspect'], load: async () => (await import('./commands/inspectCommand.js')).addInspectCommand },
  { names: ['export'], load: async () => (await import('./commands/exportCommand.js')).addExportCommand },
  { names: ['graphs'], load: async () => (await import('./commands/graphsCommand.js')).addGraphsCommand },
  { names: ['state', 'fork'], load: async () => (await import('./commands/timeTravelCommands.js')).addTimeTravelCommands },
  { names: ['steps', 'retry'], load: async () => (await import('./commands/stepsCommand.js')).addStepsCommands },
  { names: ['analyze'], load: async () => (await import('./commands/analyzeCommand.js')).addAnalyzeCommand },
];

/** Global options that take a value: their value is not the subcommand's name. */
const VALUE_OPTIONS = new Set(['--graphs', '--db']);

/** The subcommand named on the command line (the first word that is not an option), if any. */
export function commandName(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return argv[i + 1];
    if (VALUE_OPTIONS.has(arg)) i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * The subcommand modules a command line needs: none for a bare `--version`, the one defining the
 * named command, or all of them (for `--help`, `help` and a name that none defines, so that help
 * and "unknown command" list every command).
 */
export async function commandsFor(argv: readonly string[]): Promise<AddCommands[]> {
  const name = commandName(argv);
  const options = argv.slice(0, name === undefined ? argv.length : argv.indexOf(name));
  if (name === undefined && (options.includes('--version') || options.includes('-v')) && !options.includes('--help') && !options.includes('-h')) return [];
  const wanted = COMMAND_MODULES.filter((m) => name !== undefined && m.names.includes(name));
  return Promise.all((wanted.length === 1 ? wanted : COMMAND_MODULES).map((m) => m.load()));
}
