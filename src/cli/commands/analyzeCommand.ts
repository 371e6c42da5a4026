import type { Command } from 'commander';
import { analysisToMermaid, formatProbability } from '../../analytics/analysisToMermaid.js';
import { analyzeTransitions, type TransitionAnalysis } from '../../analytics/analyzeTransitions.js';
import { storedTransitions } from '../../analytics/storedTransitions.js';
import { START_STATE, statusOfState, type TransitionRecord } from '../../analytics/TransitionRecord.js';
import { AnalyticsError } from '../../errors/AnalyticsError.js';
import { UsageError } from '../../errors/UsageError.js';
import { errorJson } from '../../json/ErrorJson.js';
import { EXIT } from '../exitCodes.js';
import type { CliContext } from '../CliContext.js';
import { parseSince } from './parseSince.js';

const FORMATS = ['text', 'json', 'mermaid'] as const;
type Format = (typeof FORMATS)[number];

/** A state as people read it: the start, a node id, or `end (status)`. */
const shown = (state: string): string => (state === START_STATE ? 'START' : statusOfState(state) === null ? state : `end (${statusOfState(state)})`);
const percent = (p: number): string => `${(p * 100).toFixed(1)} %`;

/** The analysis of one workflow as text: ends, expected steps, thrash, the matrix, loops and per-state figures. */
function describe(workflow: string, a: TransitionAnalysis): string[] {
  const lines = [`${workflow}: ${a.runs} runs, ${a.transitions} transitions`];
  lines.push(`  ends: ${Object.entries(a.endProbabilities).map(([status, p]) => `${status} ${percent(p)}`).join(', ') || '(none)'}`);
  lines.push(`  expected steps from start to end: ${a.expectedSteps.toFixed(2)}`);
  lines.push(`  thrash (A→B→A moves): ${percent(a.thrash.score)} (${a.thrash.moves} of ${a.thrash.windows} two-step moves)`);
  const names = a.states.map(shown);
  const width = Math.max(...names.map((n) => n.length), 4);
  const cell = Math.max(6, ...names.slice(1).map((n) => Math.min(n.length, 12)));
  lines.push('  transition probabilities (row: from, column: to):');
  lines.push(`  ${''.padEnd(width)}  ${names.slice(1).map((n) => n.slice(0, 12).padStart(cell)).join(' ')}`);
  a.transient.forEach((state, i) => {
    const row = a.matrix[i]!.slice(1).map((p) => (p === 0 ? '·' : formatProbability(p)).padStart(cell));
    lines.push(`  ${names[i]!.padEnd(width)}  ${row.join(' ')}`);
  });
  if (a.cycles.length > 0) {
    lines.push('  hottest loops:');
    for (const c of a.cycles.slice(0, 5)) lines.push(`    ${[...c.states, c.states[0]!].map(shown).join(' → ')}  ${c.count} times in ${c.runs} runs (p ${formatProbability(c.probability)} per pass)`);
  }
  lines.push('  per state: visits, mean ms, tokens, steps to end, ends');
  for (const state of a.transient) {
    const st = a.stats[state]!;
    const ends = Object.entries(a.absorption[state] ?? {}).map(([status, p]) => `${status} ${percent(p)}`).join(', ');
    lines.push(`    ${shown(state).padEnd(width)}  ${st.visits}  ${st.meanDurationMs.toFixed(1)} ms  ${st.tokens} tokens  ${(a.stepsToEnd[state] ?? 0).toFixed(2)}  ${ends}`);
  }
  return lines;
}

/** `analyze`: the Markov chain of stored runs (transition matrix, how runs end, expected steps, thrash, loops). */
export function addAnalyzeCommand(program: Command, cli: CliContext): void {
  program
    .command('analyze')
    .description('analyse the step transitions of stored runs: transition matrix, how runs end, expected steps, thrash, loops')
    .option('--graph <name>', 'only runs of this graph (and their specialists)')
    .option('--since <date>', 'only runs created since: an ISO date or date-time, UTC unless it ends in Z or an offset (2026-12-01, 2026-12-01T08:00, 2026-12-01T08:00+02:00), or a duration ago (30m, 12h, 7d)')
    .option('--json', 'print JSON (same as --format json)')
    .option('--format <format>', `${FORMATS.join(', ')} (mermaid: one workflow, edges labelled by probability)`)
    .action(async (opts: { graph?: string; since?: string; json?: boolean; format?: string }) => {
      if (opts.format !== undefined && !(FORMATS as readonly string[]).includes(opts.format)) {
        throw new UsageError(`--format must be ${FORMATS.join(', ')}; received "${opts.format}"`);
      }
      if (opts.json && opts.format !== undefined && opts.format !== 'json') throw new UsageError(`--json and --format ${opts.format} ask for two outputs; pass one`);
      const format: Format = opts.json ? 'json' : ((opts.format as Format | undefined) ?? 'text');
      const since = opts.since === undefined ? undefined : parseSince(opts.since, Date.now());
      if (opts.graph !== undefined && opts.graph.trim() === '') throw new UsageError('--graph needs a graph name; received an empty one');
      const manager = await cli.runs();
      const window = since === undefined ? {} : { since };
      let records = await storedTransitions(manager.store, { ...(opts.graph === undefined ? {} : { graph: opts.graph }), ...window });
      if (opts.graph !== undefined && records.length === 0) {
        // A specialist's graph has no runs of its own: its records are in the runs that started it.
        const wanted = opts.graph;
        records = (await storedTransitions(manager.store, window)).filter((r) => r.workflow === wanted);
        const known = (await cli.graphs()).map((g) => g.name);
        if (records.length === 0 && !known.includes(wanted)) throw new UsageError(`no graph named "${wanted}" is registered or stored; known: ${known.join(', ') || '(none)'}`);
      }
      const byWorkflow = new Map<string, TransitionRecord[]>();
      for (const record of records) {
        const list = byWorkflow.get(record.workflow);
        if (list === undefined) byWorkflow.set(record.workflow, [record]);
        else list.push(record);
      }
      // The graph asked for first, then its specialists in the order they were first seen.
      const workflows = [...byWorkflow.keys()].sort((x, y) => Number(y === opts.graph) - Number(x === opts.graph));
      if (format === 'mermaid') {
        const only = opts.graph ?? (workflows.length === 1 ? workflows[0] : undefined);
        if (only === undefined) throw new UsageError(`--format mermaid draws one workflow; pass --graph <name> (stored: ${workflows.join(', ') || 'none'})`);
        return cli.out(analysisToMermaid(analyzeTransitions(byWorkflow.get(only) ?? [])).trimEnd());
      }
      const analyses: (readonly [string, TransitionAnalysis])[] = [];
      const failed: (readonly [string, AnalyticsError])[] = [];
      for (const w of workflows) {
        try {
          analyses.push([w, analyzeTransitions(byWorkflow.get(w)!)]);
        } catch (error) {
          // One workflow that cannot be analysed (runs still going round a loop) does not hide the others.
          if (!(error instanceof AnalyticsError) || w === opts.graph) throw error;
          failed.push([w, error]);
        }
      }
      if (failed.length > 0) {
        for (const [w, error] of failed) cli.err(format === 'json' ? JSON.stringify(errorJson(error.code, `${w}: ${error.message}`)) : `switchboard: ${w}: ${error.message} [${error.code}]`);
        cli.setExitCode(EXIT.failed);
      }
      if (format === 'json') return cli.out(JSON.stringify(Object.fromEntries(analyses)));
      if (analyses.length === 0 && failed.length === 0) return cli.out(`no stored runs${opts.graph === undefined ? '' : ` of ${opts.graph}`}${opts.since === undefined ? '' : ` since ${opts.since}`}`);
      if (analyses.length > 0) cli.out(analyses.flatMap(([w, a], i) => [...(i > 0 ? [''] : []), ...describe(w, a)]).join('\n'));
    });
}
