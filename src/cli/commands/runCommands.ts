import type { Command } from 'commander';
import { StoredRunStatus } from '../../persistence/RunStore.js';
import type { WorkflowRun } from '../../graph/WorkflowRun.js';
import type { CliContext } from '../CliContext.js';
import { eventLine, runsTable } from '../format.js';
import { toRunJson } from '../../json/RunJson.js';
import { runDetail, runSummary } from '../../json/RunSummaryJson.js';
import { toEventJson } from '../../json/EventJson.js';
import type { RunManager } from '../../graph/durable/RunManager.js';
import type { RunQueue } from '../../queue/RunQueue.js';
import type { RunRecord } from '../../persistence/RunStore.js';
import { InputError } from '../../input/InputError.js';
import { exitCodeFor } from '../exitCodes.js';
import { parseInput } from '../../input/parseInput.js';
import { MessageText } from '../../input/RunText.js';
import { RunSearchText } from '../../input/RunSearchText.js';
import { ReplyValue } from '../../input/ReplyValue.js';
import { wholeNumber } from '../../input/wholeNumber.js';
import { findGraph } from './findGraph.js';
import { checkModelChoice } from '../../model/checkModelChoice.js';
import { MODEL_OPTION_HELP } from '../runMetadata.js';
import { checkpointingStepRunner } from '../../steps/checkpointingStepRunner.js';
import { BUDGET_OPTION_HELP, budgetFromFlags, type BUDGET_FLAGS } from '../../input/RunBudgetInput.js';

/** The runs as `GET /api/runs` lists them: each with the input its first event recorded. */
async function summaries(runs: RunManager, records: RunRecord[]) {
  const firsts = await Promise.all(records.map((r) => runs.store.listEvents(r.runId, { limit: 1 })));
  return records.map((r, i) => runSummary(r, firsts[i]?.[0]?.data, (record) => runs.pathOf(record)));
}

/** Collects a repeatable option of node ids (each may list several, separated by commas). */
function collectNodes(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v !== '')];
}

/** Prints a finished leg (a summary, or JSON for scripts) and sets the exit code for its status. */
export function printRun(cli: CliContext, run: WorkflowRun, json: boolean): void {
  cli.setExitCode(exitCodeFor(run.status));
  if (json) return cli.out(JSON.stringify(toRunJson(run)));
  cli.out(`run ${run.runId}: ${run.status}`);
  cli.out(`path: ${run.path.join(' → ')}`);
  const model = toRunJson(run).model;
  if (model !== null) cli.out(`model: ${model}`);
  if (run.waiting) {
    cli.out(`waiting at ${run.waiting.nodeId}: ${run.waiting.reason}`);
    // What to type next (with the same --db / --graphs as this command, when given).
    if (run.waiting.breakpoint !== undefined) cli.out(`to go on: switchboard resume ${run.runId}   (or cancel: switchboard cancel ${run.runId})`);
    else cli.out(`to resume: switchboard resume ${run.runId} --reply "<reply>"   (or cancel: switchboard cancel ${run.runId})`);
  }
  if (run.error) cli.out(`error: ${run.error.message}`);
  if (run.outputText !== null) cli.out(`answer: ${run.outputText}`);
}

/**
 * Prints a run handed to the queue, as the command left it (a started run `queued`, a resumed run
 * still `waiting` with its reply queued; not read again, since a worker may have taken the job
 * already): its stored summary (JSON), or its id, status and what happens next.
 */
async function printQueued(cli: CliContext, queue: RunQueue, record: RunRecord, next: string, json: boolean): Promise<void> {
  const { runId } = record;
  const [first] = await queue.store.listEvents(runId, { limit: 1 });
  if (json) {
    const runs = await cli.runs();
    return cli.out(JSON.stringify(runSummary(record, first?.data, (r) => runs.pathOf(r))));
  }
  cli.out(`run ${runId}: ${record.status} (${next}; follow it with: switchboard show ${runId})`);
}

/** `start`, `runs`, `show`, `resume`, `recover`, `cancel`: the stored-run commands. */
export function addRunCommands(program: Command, cli: CliContext): void {
  const start = program
    .command('start <graph> <input>')
    .description('start a stored run of a graph (see --graphs) with a text input; with SWITCHBOARD_REDIS_URL it is queued for a worker and its id printed at once')
    .option('--checkpoint-steps', 'record each step in the store (checkpointingStepRunner), so `switchboard retry` can reuse the completed ones')
    .option('--break-before <node>', 'pause before this node runs (repeat it, or separate nodes with commas); go on with `switchboard resume <runId>`', collectNodes, [])
    .option('--break-after <node>', 'pause after this node ran (repeat it, or separate nodes with commas)', collectNodes, [])
    .option('--model <name>', MODEL_OPTION_HELP);
  for (const [flag, help] of BUDGET_OPTION_HELP) start.option(flag, help);
  start.option('--json', 'print JSON').action(async (graph: string, text: string, opts: { json?: boolean; checkpointSteps?: boolean; breakBefore: string[]; breakAfter: string[]; model?: string } & Partial<Record<keyof typeof BUDGET_FLAGS, string>>) => {
    const input = parseInput(MessageText, text);
    const budget = budgetFromFlags(opts);
    const breaks = opts.breakBefore.length + opts.breakAfter.length === 0 ? {} : { breakpoints: { before: opts.breakBefore, after: opts.breakAfter } };
    const withBudget = { ...(budget === undefined ? {} : { budget }), ...breaks };
    const module = await cli.graphsModule();
    const found = findGraph(module.graphs, graph);
    if (opts.model !== undefined) checkModelChoice(opts.model, module.models, found, '--model');
    // The chosen model travels as request metadata, as `run --model` and `POST /api/runs` send it.
    const message = opts.model === undefined ? input : { input, metadata: { model: opts.model } };
    const name = found.name;
    const queue = await cli.queue();
    if (queue !== null) {
      if (opts.checkpointSteps === true) throw new InputError('start: --checkpoint-steps is not available in the distributed mode (SWITCHBOARD_REDIS_URL is set); leave it out');
      return printQueued(cli, queue, await queue.queueRun(name, message, withBudget), 'a worker runs it', opts.json === true);
    }
    const runs = await cli.runs();
    const options = { ...(opts.checkpointSteps === true ? { stepRunner: checkpointingStepRunner(runs.store) } : {}), ...withBudget };
    printRun(cli, await runs.start(name, message, options), opts.json === true);
  });

  program
    .command('runs')
    .description('list stored runs, newest first')
    .option('--status <status>', `only runs with this status (${StoredRunStatus.options.join(', ')})`)
    .option('--graph <name>', 'only runs of this graph')
    .option('--search <text>', 'only runs whose id, input or answer contains this text (literally; A-Z in any case)')
    .option('--limit <n>', 'at most this many runs', '50')
    .option('--json', 'print JSON')
    .action(async (opts: { status?: string; graph?: string; search?: string; limit: string; json?: boolean }) => {
      let status: StoredRunStatus | undefined;
      if (opts.status !== undefined) {
        const parsed = StoredRunStatus.safeParse(opts.status);
        if (!parsed.success) throw new InputError(`--status must be one of ${StoredRunStatus.options.join(', ')}; received "${opts.status}"`);
        status = parsed.data;
      }
      const limit = parseInput(wholeNumber(1, 10_000, 'the limit'), opts.limit, '--limit');
      const search = opts.search === undefined ? undefined : parseInput(RunSearchText, opts.search, '--search');
      if (opts.graph !== undefined && opts.graph.trim() === '') throw new InputError('--graph must name a graph; received an empty name');
      const runs = await cli.runs();
      const records = await runs.list({ ...(status ? { status } : {}), ...(opts.graph === undefined ? {} : { graphName: opts.graph }), ...(search === undefined ? {} : { search }), limit });
      if (opts.json) return cli.out(JSON.stringify(await summaries(runs, records)));
      const filtered = status !== undefined || opts.graph !== undefined || search !== undefined;
      cli.out(records.length === 0 ? (filtered ? 'no stored runs match' : 'no runs stored yet') : runsTable(records, (record) => runs.pathOf(record)));
    });

  program
    .command('show <runId>')
    .description("show a run's status, path and events")
    .option('--json', 'print JSON')
    .action(async (runId: string, opts: { json?: boolean }) => {
      const runs = await cli.runs();
      const record = await runs.get(runId);
      const events = await runs.events(runId);
      const detail = runDetail(record, undefined, events[0]?.data, (r) => runs.pathOf(r));
      if (opts.json) return cli.out(JSON.stringify({ ...detail, events: events.map((e) => toEventJson(e.data)) }));
      cli.out(`run ${record.runId}  graph ${record.graphName}  status ${record.status}  version ${record.version}`);
      if (detail.parentRunId !== null) cli.out(`forked from ${detail.parentRunId} at step ${String(detail.forkedAt)}`);
      cli.out(`path: ${detail.path.join(' → ') || '(none yet)'}`);
      if (detail.model !== null) cli.out(`model: ${detail.model}`);
      if (record.waitReason) cli.out(`waiting: ${record.waitReason}`);
      if (record.error) cli.out(`error: ${record.error.code}: ${record.error.message}`);
      if (record.outputText !== null) cli.out(`answer: ${record.outputText}`);
      cli.out(`events (${events.length}):`);
      for (const event of events) cli.out(eventLine(event));
    });

  program
    .command('resume <runId>')
    .description('resume a run waiting for a human, with the reply (a run paused at a breakpoint goes on without one)')
    .option('--reply <text>', "the human's reply")
    .option('--reply-json <json>', 'the reply as JSON, for a human node declared with a reply schema')
    .option('--json', 'print JSON')
    .action(async (runId: string, opts: { reply?: string; replyJson?: string; json?: boolean }) => {
      if (opts.reply !== undefined && opts.replyJson !== undefined) {
        throw new InputError('resume: give the reply with exactly one of --reply <text> or --reply-json <json>');
      }
      if (opts.reply === undefined && opts.replyJson === undefined) {
        // No reply: a run paused at a breakpoint goes on; a run at a human node refuses it (run_not_waiting).
        if ((await cli.queue()) !== null) throw new InputError('resume: give the reply with exactly one of --reply <text> or --reply-json <json>');
        return printRun(cli, await (await cli.runs()).resume(runId), opts.json === true);
      }
      let raw: unknown = opts.reply;
      if (opts.replyJson !== undefined) {
        try {
          raw = JSON.parse(opts.replyJson);
        } catch (cause) {
          throw new InputError(`resume: --reply-json is not JSON (${(cause as Error).message}); quote it for the shell, e.g. --reply-json '{"approved":true}'`, cause);
        }
      }
      const reply = parseInput(ReplyValue, raw, opts.reply !== undefined ? '--reply' : '--reply-json');
      const queue = await cli.queue();
      if (queue !== null) {
        return printQueued(cli, queue, await queue.resume(runId, reply), 'the reply is queued; a worker resumes it', opts.json === true);
      }
      printRun(cli, await (await cli.runs()).resume(runId, { reply }), opts.json === true);
    });

  program
    .command('recover')
    .description('continue runs whose process died, from their last checkpoint')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const outcomes = await (await cli.runs()).recover();
      if (opts.json) return cli.out(JSON.stringify(outcomes.map((o) => (o.outcome === 'recovered' ? { outcome: o.outcome, ...toRunJson(o.run) } : o))));
      if (outcomes.length === 0) return cli.out('nothing to recover');
      for (const o of outcomes) cli.out(o.outcome === 'recovered' ? `recovered ${o.runId}: ${o.run.status}` : `skipped ${o.runId}: ${o.reason}`);
    });

  program
    .command('cancel <runId>')
    .description('cancel a running, waiting or interrupted run')
    .option('--json', 'print JSON')
    .action(async (runId: string, opts: { json?: boolean }) => {
      const runs = await cli.runs();
      const queue = await cli.queue();
      const record = queue !== null ? await queue.cancel(runId) : await runs.cancel(runId);
      const [first] = await runs.store.listEvents(runId, { limit: 1 });
      if (opts.json) return cli.out(JSON.stringify(runSummary(record, first?.data, (r) => runs.pathOf(r))));
      cli.out(`run ${record.runId}: ${record.status}`);
    });
}
