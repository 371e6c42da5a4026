import { loadavg } from 'node:os';
import { StateGraph, Workflow, step, type BudgetOptions } from 'switchboard';
import { median, pairedRatios } from './measure.js';
import { writeResultsSection } from './resultsSection.js';

/**
 * `npm run bench:budget` (and part of `npm run bench`): what budgets cost on a 10,000-step loop.
 * The same loop runs with and without `RunOptions.budget` (all four limits set, none reached, so
 * every step is checked and the duration timer is armed), back to back as pairs in one process;
 * the ratio with ÷ without of each pair is kept and the median reported. Goal: under 1.10.
 */
const STEPS = 10_000;
const PAIRS = Number(process.env['SWITCHBOARD_BENCH_PAIRS'] ?? 21);
const BUDGET: BudgetOptions = { maxCost: 1_000, maxTokens: 1e12, maxIterations: 1e9, maxDuration: 2_000_000_000 };
const log = (line: string) => process.stderr.write(`${line}\n`);

const graph = new StateGraph({ name: 'loop', maxSteps: STEPS + 1 })
  .addNode('inc', (ctx) => {
    ctx.put('n', ((ctx.get('n') as number | undefined) ?? 0) + 1);
    return null;
  })
  .start('inc')
  .addConditionalEdges('inc', (ctx) => ((ctx.get('n') as number) >= STEPS ? '__end__' : 'inc'));
// A workflow loop pass is two steps (the check and the body).
const flow = Workflow.define<number>('loop').repeatUntil((_c, n) => n >= STEPS / 2).step(step('inc', (_c, n: number) => n + 1)).end();

const graphRun = async (budget?: BudgetOptions) => {
  const run = await graph.run('go', budget === undefined ? {} : { budget });
  if (run.state.get('n') !== STEPS || run.status !== 'completed') throw new Error(`graph loop ended ${run.status}`);
};
const flowRun = async (budget?: BudgetOptions) => {
  const run = await flow.run(0, { maxIterations: STEPS, ...(budget === undefined ? {} : { budget }) });
  if (run.output !== STEPS / 2 || run.status !== 'completed') throw new Error(`workflow loop ended ${run.status}`);
};

const loadAtStart = loadavg()[0] ?? 0;
log(`budget bench: ${STEPS}-step loops, ${PAIRS} pairs each (load ${loadAtStart.toFixed(1)})`);
for (let i = 0; i < 2; i++) await Promise.all([graphRun(), graphRun(BUDGET), flowRun(), flowRun(BUDGET)]);
const summary = (ratios: number[]) => {
  const sorted = [...ratios].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.floor(p * (sorted.length - 1))]!;
  return { median: median(ratios), q1: q(0.25), q3: q(0.75) };
};
const timed = async (task: () => Promise<void>) => {
  const start = process.hrtime.bigint();
  await task();
  return Number(process.hrtime.bigint() - start) / 1e6;
};
const graphMs = await timed(graphRun);
const graphRatios = summary(await pairedRatios(() => graphRun(), () => graphRun(BUDGET), PAIRS));
log(`  StateGraph: median ${graphRatios.median.toFixed(3)}`);
const flowMs = await timed(flowRun);
const flowRatios = summary(await pairedRatios(() => flowRun(), () => flowRun(BUDGET), PAIRS));
log(`  Workflow: median ${flowRatios.median.toFixed(3)}`);
const loadAtEnd = loadavg()[0] ?? 0;

const row = (name: string, ms: number, r: ReturnType<typeof summary>) =>
  `| ${name} | ${((ms * 1000) / STEPS).toFixed(1)} | ${r.median.toFixed(3)} | ${r.q1.toFixed(3)}–${r.q3.toFixed(3)} | ${r.median < 1.1 ? 'yes' : 'NO'} |`;
const table = [
  `## Budgets (bench/budget.bench.ts)`,
  '',
  `A ${STEPS.toLocaleString('en-US')}-step loop with \`budget: { maxCost, maxTokens, maxIterations, maxDuration }\` (none reached: every step checked,`,
  `the duration timer armed) against the same loop without, as ${PAIRS} back-to-back pairs per engine; load average ${loadAtStart.toFixed(1)} at the start,`,
  `${loadAtEnd.toFixed(1)} at the end (2 cores, shared). Goal: with ÷ without under 1.10.`,
  '',
  '| loop | µs per step without | with ÷ without (median) | quartiles | under 1.10 |',
  '| --- | ---: | ---: | ---: | :---: |',
  row('StateGraph (1 node, self-loop)', graphMs, graphRatios),
  row('Workflow (repeatUntil: check + body)', flowMs, flowRatios),
].join('\n');
process.stdout.write(`${table}\n`);
writeResultsSection('budget', table);
