import type { Command } from 'commander';
import type { CliContext } from '../CliContext.js';
import { excerpt } from '../format.js';
import { parseInput } from '../../input/parseInput.js';
import { wholeNumber } from '../../input/wholeNumber.js';
import { readRunHistory } from '../../history/readRunHistory.js';
import { checkStep, stateFromHistory } from '../../history/stateAt.js';
import { toRunStateJson } from '../../json/RunStateJson.js';
import { toRunJson } from '../../json/RunJson.js';
import { InputError } from '../../input/InputError.js';
import { exitCodeFor } from '../exitCodes.js';
import { printRun } from './runCommands.js';

/** A step number as the command line gives it (checked against the run afterwards). */
const StepNumber = wholeNumber(0, 1_000_000_000, 'the step');

/** The edited state `--state` gives: a JSON object. */
function parseState(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new InputError(`fork: --state is not JSON (${(cause as Error).message}); quote it for the shell, e.g. --state '{"category":"refund"}'`, cause);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError('fork: --state must be a JSON object: the whole shared state to go on with (see `switchboard state <runId> --at <step> --json`)');
  }
  return value as Record<string, unknown>;
}

/** `state <runId> --at <step>` (a stored run's full state after a step) and `fork <runId> --at <step>`. */
export function addTimeTravelCommands(program: Command, cli: CliContext): void {
  program
    .command('state <runId>')
    .description("show a stored run's full state after a step (0 = before the first node; default: its last step)")
    .option('--at <step>', 'the step (see the path in `switchboard show`)')
    .option('--json', 'print JSON')
    .action(async (runId: string, opts: { at?: string; json?: boolean }) => {
      const runs = await cli.runs();
      const asked = opts.at === undefined ? undefined : parseInput(StepNumber, opts.at, '--at');
      const history = await readRunHistory(runs.store, runId);
      const at = stateFromHistory(history, checkStep(history, asked ?? history.steps.length));
      const json = toRunStateJson(at);
      if (opts.json === true) return cli.out(JSON.stringify(json));
      cli.out(`run ${at.runId}  graph ${at.graph}  status ${at.status}`);
      cli.out(`step ${at.step} of ${at.lastStep}: ${at.nodeId === null ? '(before the first node)' : `after ${at.nodeId}`}${at.nextNodeId === null ? '' : `, next ${at.nextNodeId}`}`);
      if (json.parentRunId !== null) cli.out(`forked from ${json.parentRunId} at step ${String(json.forkedAt)}`);
      cli.out(`next request: ${excerpt(JSON.stringify(json.request), 100)}`);
      const keys = Object.keys(json.state);
      cli.out(keys.length === 0 ? 'state: (empty)' : 'state:');
      for (const key of keys) cli.out(`  ${key} = ${excerpt(JSON.stringify(json.state[key]), 100)}`);
    });

  program
    .command('fork <runId>')
    .description('start a new stored run from a step of a stored run (its steps up to there are replayed, not run again), optionally with an edited state')
    .requiredOption('--at <step>', 'the step to fork at (0 = start over with the same input)')
    .option('--state <json>', 'the whole shared state to go on with, as a JSON object (checked against the graph\'s state)')
    .option('--json', 'print JSON')
    .action(async (runId: string, opts: { at: string; state?: string; json?: boolean }) => {
      const at = parseInput(StepNumber, opts.at, '--at');
      const state = opts.state === undefined ? undefined : parseState(opts.state);
      const run = await (await cli.runs()).fork(runId, { at, ...(state === undefined ? {} : { state }) });
      cli.setExitCode(exitCodeFor(run.status));
      if (opts.json === true) return cli.out(JSON.stringify(toRunJson(run, { runId, step: at })));
      cli.out(`forked ${runId} at step ${at}${state === undefined ? '' : ' with an edited state'}`);
      printRun(cli, run, false);
    });
}
