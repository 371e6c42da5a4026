import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { forkSample } from './forkSample.js';
import { median, quartiles } from './measure.js';
import { writeResultsSection } from './resultsSection.js';
import type { SteadySample, SteadyVariant } from './steadyOverheadChild.js';

/**
 * `npm run bench:steady`: the overheads of bench/budget.bench.ts and bench/transitions.bench.ts
 * (budgets, transition recorders on the 10,000-step loop, with ÷ without in back-to-back pairs)
 * measured as a long-running process sees them: no forced GC before each run, and Node started
 * with the young generation the README recommends for long loops of fast steps
 * (`--max-semi-space-size=64`, see bench/youngGeneration.bench.ts), on the built package (the
 * npm script builds it first). One child process per variant (bench/steadyOverheadChild.ts), so no
 * variant's heap changes another's; SWITCHBOARD_BENCH_PAIRS pairs each (default 41).
 */
const CHILD = fileURLToPath(new URL('./steadyOverheadChild.ts', import.meta.url));
const BUNDLE = fileURLToPath(new URL('../dist/bundle/index.js', import.meta.url));
const PAIRS = Number(process.env['SWITCHBOARD_BENCH_PAIRS'] ?? 41);
const FLAGS = ['--max-semi-space-size=64'];
const VARIANTS: { key: SteadyVariant; label: string }[] = [
  { key: 'budget', label: 'RunOptions.budget (all four limits set, none reached)' },
  { key: 'counting', label: 'TransitionRecorder counting (onTransition, nothing kept)' },
  { key: 'kept', label: 'TransitionRecorder (records kept in memory)' },
  { key: 'jsonl', label: 'JsonlTransitionRecorder (a file, the writer thread)' },
];
const log = (line: string) => process.stderr.write(`${line}\n`);

function sampleInChild(variant: SteadyVariant): Promise<SteadySample> {
  return forkSample(CHILD, [variant, String(PAIRS), BUNDLE], ['--import', 'tsx', ...FLAGS], `the steady-overhead child for ${variant}`);
}

const started = Date.now();
const rows: string[] = [];
for (const { key, label } of VARIANTS) {
  const load = loadavg()[0] ?? 0;
  const s = await sampleInChild(key);
  const row = `| ${label} | **${median(s.wall).toFixed(3)}×** | ${quartiles(s.wall)} | ${median(s.cpu).toFixed(3)}× | ${median(s.withoutMs).toFixed(1)} | ${median(s.withMs).toFixed(1)} | ${load.toFixed(1)} |`;
  log(row);
  rows.push(row);
}

const section = `## Overheads in a long-running process (bench/steadyOverhead.bench.ts)

Run: \`npm run bench:steady\`. The 2-node loop of bench/transitions.bench.ts, 10,000 steps, without
and with a budget (as bench/budget.bench.ts sets it) or a transition recorder, back to back in
${PAIRS} pairs (alternating order) in one child process per variant, started with \`${FLAGS.join(' ')}\` and with no forced GC before a run, importing the built package
(\`dist/bundle/index.js\`): the conditions of an application that runs loop after loop, with the young
generation the README recommends for such loops. The sources loaded through tsx (as the other benchmarks
load them) keep the loop in the slow young-generation state even with this flag: 125–164 ms a run
without a recorder, against 73–75 ms for the build (scratch, 21 pairs each, 2026-12-08).
bench/budget.bench.ts and bench/transitions.bench.ts force a full GC before every run; that puts each run back into the young-generation state
bench/youngGeneration.bench.ts describes (the loop without a recorder took 137.7 ms a run there with
this flag, against 74.4 ms without the forced GC: scratch runs of 21 pairs, 2026-12-08), and their
quartiles span ±5–15 %. Goal: under 1.10×. ${new Date().toISOString()}, Node ${process.version}, 2 cores,
${((Date.now() - started) / 1000).toFixed(0)} s in all.

| variant | with ÷ without, wall (median) | quartiles | process CPU | ms a run without | ms a run with | load |
| --- | --- | --- | --- | ---: | ---: | ---: |
${rows.join('\n')}`;

writeResultsSection('steadyOverhead', section);
process.stdout.write(`${section}\n`);
