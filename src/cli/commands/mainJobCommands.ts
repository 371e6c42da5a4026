import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { WorkflowRun } from '../../graph/WorkflowRun.js';
import type { RunManager } from '../../graph/durable/RunManager.js';
import { UsageError } from '../../errors/UsageError.js';
import type { CliContext } from '../CliContext.js';
import { excerpt, table } from '../format.js';
import { runMetadata } from '../runMetadata.js';
import type { Scenario } from '../../server/Scenario.js';
import { TracePrinter } from '../TracePrinter.js';
import type { TraceRecorder } from '../../trace/TraceRecorder.js';
import { EXIT, exitCodeFor } from '../exitCodes.js';
import { parseInput } from '../../input/parseInput.js';
import { MessageText } from '../../input/RunText.js';
import { ToolBudget } from '../../input/ToolBudget.js';
import { faultNames } from '../../input/faultNames.js';
import { readImageFile } from '../../input/readImageFile.js';
import { findGraph } from './findGraph.js';
import { checkModelChoice } from '../../model/checkModelChoice.js';
import { MODEL_OPTION_HELP } from '../runMetadata.js';
import { toRunJson } from '../../json/RunJson.js';
import { BUDGET_OPTION_HELP, budgetFromFlags, type BUDGET_FLAGS } from '../../input/RunBudgetInput.js';
import type { BudgetOptions } from '../../budget/Budget.js';

/** The `--max-*` budget options as commander hands them over. */
type BudgetFlags = Partial<Record<keyof typeof BUDGET_FLAGS, string>>;
import { errorJson } from '../../json/ErrorJson.js';

/**
 * Runs one request on a stored run of `graph`, printing the live trace unless `print` is null. It
 * starts the run the way `start`, `inspect` and the workbench do (`RunManager.start`), with the
 * printer as one more recorder, so what is stored does not depend on the command that started it.
 */
async function runTraced(
  runs: RunManager,
  graph: string,
  input: string,
  metadata: Record<string, unknown> | undefined,
  print: ((line: string) => void) | null,
  budget?: BudgetOptions,
): Promise<WorkflowRun> {
  const printer = print === null ? null : new TracePrinter(print);
  const recorders: TraceRecorder[] = printer === null ? [] : [{ record: (event) => printer.print(event) }];
  return runs.start(graph, metadata === undefined ? input : { input, metadata }, { recorders, ...(budget === undefined ? {} : { budget }) });
}

/** `run` (one message, live trace) and `scenarios` (the canned demo): the main job. */
export function addMainJobCommands(program: Command, cli: CliContext): void {
  const runCommand = program
    .command('run <message>')
    .description('run a message through a graph (default: the first registered, the customer-service graph) with a live trace')
    .option('--graph <name>', 'the graph to run')
    .option('--image <file>', 'attach a picture')
    .option('--fault <name>', 'inject a fault the graphs module declares (customer-service: retrieval_gap, tool_timeout, review_rework); repeatable', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--tool-budget <n>', 'tool rounds allowed in the order loop (1 to 20)')
    .option('--model <name>', MODEL_OPTION_HELP);
  for (const [flag, help] of BUDGET_OPTION_HELP) runCommand.option(flag, help);
  runCommand
    .option('--json', 'print the run as JSON instead of the trace')
    .action(async (text: string, opts: { graph?: string; image?: string; fault: string[]; toolBudget?: string; model?: string; json?: boolean } & BudgetFlags) => {
      // Every input is checked before the store is opened: a refused command stores nothing.
      const module = await cli.graphsModule();
      const message = parseInput(MessageText, text);
      const faults = parseInput(faultNames(module.faults), opts.fault, '--fault');
      const toolBudget = opts.toolBudget === undefined ? undefined : parseInput(ToolBudget, opts.toolBudget, '--tool-budget');
      const budget = budgetFromFlags(opts);
      const image = opts.image === undefined ? undefined : (await readImageFile(opts.image)).path;
      const found = findGraph(module.graphs, opts.graph);
      if (opts.model !== undefined) checkModelChoice(opts.model, module.models, found, '--model');
      const graph = found.name;
      const metadata = runMetadata({ ...(image ? { image } : {}), faults, ...(toolBudget !== undefined ? { toolBudget } : {}), ...(opts.model === undefined ? {} : { model: opts.model }) });
      const runs = await cli.runs();
      const run = await runTraced(runs, graph, message, metadata, opts.json ? null : cli.out, budget);
      cli.setExitCode(exitCodeFor(run.status));
      if (opts.json) return cli.out(JSON.stringify(toRunJson(run)));
      cli.out('');
      const model = toRunJson(run).model;
      cli.out(`run ${run.runId}: ${run.status}   path: ${run.path.join(' → ')}${model === null ? '' : `   model: ${model}`}`);
      // The reason says what is asked (an order number, a decision…): the node decides who answers.
      if (run.waiting) cli.out(`waiting for a reply at ${run.waiting.nodeId}: ${run.waiting.reason}\nresume with: npx switchboard resume ${run.runId} --reply "<text>"`);
      if (run.error) cli.out(`error: ${run.error.message} [${run.error.code}]`);
      if (run.outputText !== null && !run.waiting) cli.out(`\n${run.outputText}`);
    });

  program
    .command('scenarios')
    .description('run the canned scenarios of the registered graphs and print a summary')
    .option('--only <ids>', 'comma-separated scenario ids')
    .option('--json', 'print the results as JSON')
    .action(async (opts: { only?: string; json?: boolean }) => {
      const runs = await cli.runs();
      const wanted = opts.only?.split(',').map((s) => s.trim());
      const module = await cli.graphsModule();
      const list = module.scenarios.filter((s) => wanted === undefined || wanted.includes(s.id));
      if (list.length === 0) throw new UsageError(`no scenarios${wanted ? ` with ids ${wanted.join(', ')}` : ' are registered'}`);
      // Pictures are checked before any scenario runs: a broken one is a usage error, not a failed run.
      const root = dirname(fileURLToPath(module.url));
      const images = new Map<string, string>();
      for (const s of list) {
        if (s.image !== undefined) images.set(s.id, (await readImageFile(resolve(root, s.image), { name: `scenario "${s.id}" image` })).path);
        findGraph(module.graphs, s.graph);
      }
      const rows: Array<{ scenario: Scenario; run: WorkflowRun; resumed?: WorkflowRun }> = [];
      for (const [i, scenario] of list.entries()) {
        if (!opts.json) cli.out(`\n[${i + 1}/${list.length}] ${scenario.title}\n  “${excerpt(scenario.message, 100)}”${scenario.image ? `  + image ${scenario.image.split('/').at(-1)}` : ''}`);
        const graph = scenario.graph ?? module.graphs[0]!.name;
        const image = images.get(scenario.id);
        const run = await runTraced(runs, graph, scenario.message, runMetadata({ ...scenario, ...(image ? { image } : {}) }), opts.json ? null : cli.out);
        let resumed: WorkflowRun | undefined;
        if (run.status === 'waiting' && scenario.reply !== undefined) {
          if (!opts.json) cli.out(`  ↺ a person replies: “${excerpt(scenario.reply, 80)}”`);
          resumed = await runs.resume(run.runId, { reply: scenario.reply });
        }
        rows.push({ scenario, run, ...(resumed ? { resumed } : {}) });
      }
      const expected = (s: Scenario) => s.expectedStatus ?? 'completed';
      const unexpected = rows.filter((r) => (r.resumed ?? r.run).status !== expected(r.scenario));
      if (unexpected.length > 0) cli.setExitCode(EXIT.failed);
      const mismatch = `${unexpected.length} of ${rows.length} scenarios did not end as expected: ${unexpected
        .map((r) => `${r.scenario.id} ended ${(r.resumed ?? r.run).status}, expected ${expected(r.scenario)}`)
        .join('; ')}`;
      if (opts.json) {
        cli.out(
          JSON.stringify(
            rows.map((r) => ({
              id: r.scenario.id,
              ...toRunJson(r.resumed ?? r.run),
              expectedStatus: expected(r.scenario),
              ...(r.resumed ? { waitedFor: r.run.waiting?.reason } : {}),
            })),
          ),
        );
        if (unexpected.length > 0) cli.err(JSON.stringify(errorJson('scenarios_unexpected', mismatch)));
        return;
      }
      cli.out('');
      cli.out(
        table(
          ['SCENARIO', 'STATUS', 'PATH', 'ANSWER'],
          rows.map(({ scenario, run, resumed }) => {
            const final = resumed ?? run;
            const status = resumed ? `waiting → ${final.status}` : final.status;
            const note = final.status === 'waiting' ? `waits: ${final.waiting?.reason ?? ''}` : (final.outputText ?? final.error?.message);
            return [scenario.id, status, excerpt(final.path.join(' → '), 70), excerpt(note, 60)];
          }),
        ),
      );
      if (unexpected.length > 0) cli.err(`switchboard: ${mismatch}`);
    });
}
