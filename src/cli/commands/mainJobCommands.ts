import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { WorkflowRun } from '../../graph/WorkflowRun.js';
import type { RunManager } from '../../graph/durable/RunManager.js';
import { GraphDefinitionError } from '../../errors/GraphDefinitionError.js';
import type { CliContext } from '../CliContext.js';
import { excerpt, table } from '../format.js';
import { runMetadata } from '../runMetadata.js';
import type { Scenario } from '../../server/Scenario.js';
import { TracePrinter } from '../TracePrinter.js';
import { EXIT, exitCodeFor } from '../exitCodes.js';

/** Runs one request on a stored run of `graph`, printing the live trace unless `quiet`. */
async function runTraced(runs: RunManager, graph: string, input: string, metadata: Record<string, unknown> | undefined, print: ((line: string) => void) | null): Promise<WorkflowRun> {
  const printer = print === null ? null : new TracePrinter(print);
  let run: WorkflowRun | undefined;
  for await (const event of runs.graph(graph).stream(metadata === undefined ? input : { input, metadata }, { store: runs.store })) {
    printer?.print(event);
    if (event.type === 'run.completed') run = (event as { run: WorkflowRun }).run;
  }
  return run!;
}

function summary(run: WorkflowRun) {
  return {
    runId: run.runId,
    status: run.status,
    path: run.path,
    outputText: run.outputText,
    ...(run.waiting ? { waiting: run.waiting } : {}),
    ...(run.error ? { error: { code: run.error.code, message: run.error.message } } : {}),
  };
}

/** `run` (one message, live trace) and `scenarios` (the canned demo): the main job. */
export function addMainJobCommands(program: Command, cli: CliContext): void {
  program
    .command('run <message>')
    .description('run a message through a graph (default: the first registered, the customer-service graph) with a live trace')
    .option('--graph <name>', 'the graph to run')
    .option('--image <file>', 'attach a picture')
    .option('--fault <name>', 'inject a fault (retrieval_gap, tool_timeout, review_rework); repeatable', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--tool-budget <n>', 'tool rounds allowed in the order loop')
    .option('--json', 'print the run as JSON instead of the trace')
    .action(async (message: string, opts: { graph?: string; image?: string; fault: string[]; toolBudget?: string; json?: boolean }) => {
      const runs = await cli.runs();
      const graph = opts.graph ?? (await cli.graphsModule()).graphs[0]?.name;
      if (graph === undefined) throw new GraphDefinitionError('no graph is registered; pass --graphs <module>');
      const image = opts.image === undefined ? undefined : resolve(opts.image);
      if (image !== undefined && !existsSync(image)) throw new GraphDefinitionError(`--image: no such file: ${image}`);
      const toolBudget = opts.toolBudget === undefined ? undefined : Number(opts.toolBudget);
      if (toolBudget !== undefined && (!Number.isInteger(toolBudget) || toolBudget < 1)) throw new GraphDefinitionError(`--tool-budget must be a positive integer; received "${opts.toolBudget}"`);
      const metadata = runMetadata({ ...(image ? { image } : {}), faults: opts.fault, ...(toolBudget !== undefined ? { toolBudget } : {}) });
      const run = await runTraced(runs, graph, message, metadata, opts.json ? null : cli.out);
      cli.setExitCode(exitCodeFor(run.status));
      if (opts.json) return cli.out(JSON.stringify(summary(run)));
      cli.out('');
      cli.out(`run ${run.runId}: ${run.status}   path: ${run.path.join(' → ')}`);
      if (run.waiting) cli.out(`waiting for a person: ${run.waiting.reason}\nresume with: npx switchboard resume ${run.runId} --reply "<text>"`);
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
      if (list.length === 0) throw new GraphDefinitionError(`no scenarios${wanted ? ` with ids ${wanted.join(', ')}` : ' are registered'}`);
      const rows: Array<{ scenario: Scenario; run: WorkflowRun; resumed?: WorkflowRun }> = [];
      for (const [i, scenario] of list.entries()) {
        if (!opts.json) cli.out(`\n[${i + 1}/${list.length}] ${scenario.title}\n  “${excerpt(scenario.message, 100)}”${scenario.image ? `  + image ${scenario.image.split('/').at(-1)}` : ''}`);
        const graph = scenario.graph ?? module.graphs[0]!.name;
        const image = scenario.image === undefined ? undefined : resolve(dirname(fileURLToPath(module.url)), scenario.image);
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
              ...summary(r.resumed ?? r.run),
              expectedStatus: expected(r.scenario),
              ...(r.resumed ? { waitedFor: r.run.waiting?.reason } : {}),
            })),
          ),
        );
        if (unexpected.length > 0) cli.err(JSON.stringify({ error: { code: 'scenarios_unexpected', message: mismatch } }));
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
