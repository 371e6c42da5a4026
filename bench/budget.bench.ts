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
/** What the section says after the table: its history (kept here, so a re-run writes it again). */
const HISTORY = `The table is the tree of df73c46 (wall clock, 2026-12-06 late evening, a new machine, load 1.8–2.0; since 4fbe936 a budget's handler locks model calls after it, one more comparison per step in the meter's change check): StateGraph 1.024 (quartiles 0.991–1.079), Workflow 1.018 (1.007–1.080), 15.7 / 19.9 µs per step without. The table before it was the tree of 4fbe936 (wall clock, 2026-12-06, load 1.8–2.0): StateGraph 1.061 (quartiles 1.003–1.187), Workflow 1.085 (1.014–1.117), 28.2 / 38.6 µs per step without (this process's loop ran slower than the runs below; on this machine one process's step differs from another's by up to 2×); the one before that was the tree of 125c141: StateGraph 1.020 (0.965–1.092), Workflow 1.054 (0.991–1.138), 17.2 / 18.9 µs per step without, load 2.6–3.9.
History:
Since d920bb2 and 8ae5e05 a step copies the budget state into the machine context only when what
was spent changed (stored snapshots of a running run take the live state, so resume keeps the time
used), and a leg starts its actor inside its meter's async context, so its steps find the meter
current instead of entering the context at every node. The tree before (9235641) and after, run
one after the other at load 3–5, 21 pairs each (StateGraph / Workflow): before 1.217 / 1.179 and
1.236 / 1.204; after 1.047 / 1.069 (load 4.6), 0.980 / 1.108 (load 3.4) and the table's
1.098 / 1.104 (load 3.1). The StateGraph loop is now under the goal in all three runs; the Workflow
loop is at the line (1.07–1.11), so the goal is not reliably met for it. What is left is the
AsyncLocalStorage itself: on Node 20, while a leg with a budget runs, every promise of the process
pays its hooks, and a Workflow step makes more promises than a StateGraph one. Not done: carrying
the meter to model calls explicitly (a model request naming its run) so the async context is needed
only for model calls made from user code.
Re-measured on the tree of 965f32a at load 26.6 → 22.3 (21 pairs): StateGraph 1.136 (quartiles
0.972–1.249), Workflow 1.061 (0.928–1.176), 142 / 214 µs per step without (the machine was loaded
about 6× the table's run). Tried and not landed: switching the meter's AsyncLocalStorage on only
while a node of a budgeted run is in flight (a count of open node scopes, \`disable()\` at zero, fork
branches and specialists entering the run's meter) instead of for the whole leg. test/budget stayed
green, but measured right after the tree above it was worse, StateGraph 1.209 and Workflow 1.345
(load 21.4 → 15.0): switching the promise hooks on and off at every node costs more than the hooks
save between nodes. Not done: passing the meter to the engine's own model calls explicitly; it
removes the context only where the engine makes the call, while every user node (the benchmark's
loop bodies are user nodes) still needs it for the model calls user code makes.
Re-measured on a quiet machine (load 0.3 at the start, 21 pairs, \`npm run bench:budget\`, tree of
9f5e378): StateGraph 1.055 (quartiles 0.982–1.088), Workflow 1.086 (1.036–1.144), 17.5 / 23.7 µs per
step without — both under 1.10 at the median.
Re-measured after the i14-overhead changes (tree of c58db56, load 2.3 → 2.1, 21 pairs, \`npm run
bench:budget\`): StateGraph 1.102 (quartiles 1.057–1.114), Workflow 1.052 (1.020–1.083), 12.4 / 22.8 µs per step without
(the loop is faster than in the runs above, so the meter's fixed cost per step is a larger share). Wall and CPU side
by side (\`bench/overheadCpu.bench.ts\`, 21 pairs, load 2.4–2.5): StateGraph wall 1.099 / CPU 1.099, Workflow 1.125 / 1.113.
Budgets are at the 1.10 line, not reliably under it. Not done: passing the meter to the engine's own model calls
directly (the loops here are user nodes, so it would not change these figures; the AsyncLocalStorage the user nodes
need is what remains). The budget changes of this round are about coverage, not cost: a sub-workflow's steps now count
toward maxIterations and are checked as they run (a nested step pays one counter increment and a check).
A node that answers at once is no longer awaited (runNode returns its result as it is, stepNode awaits only a
promise): a graph step of a synchronous node makes 3 promises instead of 7, a Workflow step (check + body) 9 instead of
10 (counted with an async hook). Each promise is what a budget's AsyncLocalStorage charges on Node 20. Paired CPU time
per step, this tree ÷ main (6620d60) one after the other, 15 pairs each, load 2.0–2.5: budget StateGraph +1.75 µs per step
over the bare loop (ratio 1.083) against +3.07 (1.169) before; Workflow +3.12 (1.095) against +3.62 (1.095).
\`bench/overheadCpu.bench.ts\` (21 pairs, load 1.9–2.3), after / before: budget StateGraph wall 1.112 / 1.101, CPU 1.136 /
1.117; Workflow wall 1.096 / 1.135, CPU 1.120 / 1.153; TransitionRecorder kept CPU 1.122 / 1.169, counting 1.182 / 1.124,
JSONL 1.230 / 1.176. The quartiles of those ratios are 5–10 points wide at this load, so the goal (under 1.10) is still
not reliably met for either budgets or recording; the absolute budget cost per graph step fell, the ratios did not move
beyond the noise. Not done: the transition path's per-step work (three light-path emits and the tracker, about
0.5–0.7 µs per step in a CPU profile) and the kept recorder's record objects (built per step, kept).
This round (a259170, d352640): a step of a synchronous node makes one promise instead of three in a StateGraph
(a machine that runs its nodes directly starts the node in its barrier's \`then\` and sends a synchronous outcome at once)
and one instead of eight in a typed Workflow (\`executeStepNow\` settles a step whose \`execute\` returns no promise at once,
the step node and the loop check do not await a value; only a sub-workflow step reads the step's abort signal, which made
an AbortController and a machine subscription per step), counted with an async hook (test/graph/stepPromises,
test/workflow/stepPromises). Each promise is what the budget's AsyncLocalStorage charges on Node 20. Before and after in
one process (\`npx tsx bench/overheadBuilds.bench.ts before=<97488a9's dist/bundle/index.js> after=dist/bundle/index.js\`,
41 pairs each, rotated, load 3.5–3.8), CPU (wall) with ÷ without: StateGraph 1.162 (1.127) → 1.036 (1.077), quartiles
0.981–1.110 (wall 1.033–1.105); Workflow 1.135 (1.126) → 1.061 (1.067), quartiles 1.019–1.126 (wall 1.025–1.119); the
Workflow loop without a budget 28.2 → 25.2 µs CPU per step (the table: 18.9 µs wall, was 22.8). \`bench/overheadCpu.bench.ts\`
(31 pairs, load 6–7): StateGraph wall 1.053 / CPU 1.022, Workflow wall 1.061 / CPU 1.073; \`npm run bench:budget\` is the
table above. Budgets are now under 1.10 at the median in every run of this round; the upper quartiles (1.09–1.14) still
reach the line. The two dist builds' loops without a budget differ by about 1 µs per step from run to run; bundled from
the same sources with and without the step change they run alike (18.45 / 18.73 / 18.35 µs per step, A/B/A).`;

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
  '',
  HISTORY,
].join('\n');
process.stdout.write(`${table}\n`);
writeResultsSection('budget', table);
