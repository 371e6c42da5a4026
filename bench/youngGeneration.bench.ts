import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ImplementationKey } from './impl/implementations.js';
import { forkSample } from './forkSample.js';
import { median } from './measure.js';
import { writeResultsSection } from './resultsSection.js';
import type { YoungGenerationSample } from './youngGenerationChild.js';

/**
 * `npm run bench:young`: how the size of V8's young generation changes a long loop of fast steps,
 * on the built package (the npm script builds it first; the sources loaded through tsx behave
 * differently, see bench/steadyOverhead.bench.ts). Each sample is a fresh child process
 * (bench/youngGenerationChild.ts) started with or without
 * `--max-semi-space-size`, timing 10 runs of the 10,000-step 2-node loop one after another. The
 * variants of one implementation run one after the other in rotated order, SWITCHBOARD_BENCH_PAIRS
 * rounds (default 5); each round's ratio to the default flags is kept and the median reported.
 */
const CHILD = fileURLToPath(new URL('./youngGenerationChild.ts', import.meta.url));
const BUNDLE = fileURLToPath(new URL('../dist/bundle/index.js', import.meta.url));
const ROUNDS = Number(process.env['SWITCHBOARD_BENCH_PAIRS'] ?? 5);
const STEPS = 10_000;
const RUNS = 10;
const IMPLEMENTATIONS: { key: ImplementationKey; name: string }[] = [
  { key: 'switchboard', name: 'Switchboard (the build)' },
  { key: 'xstate', name: 'bare XState v5' },
];
const VARIANTS: { label: string; flags: string[] }[] = [
  { label: 'default', flags: [] },
  { label: '--max-semi-space-size=32', flags: ['--max-semi-space-size=32'] },
  { label: '--max-semi-space-size=64', flags: ['--max-semi-space-size=64'] },
];
const log = (line: string) => process.stderr.write(`${line}\n`);
/** What is known about why, measured by hand (kept here so a re-run writes it again). */
const FINDINGS = `What the table shows, and what was measured by hand on 2026-12-08 (Node v20.20.2, the built package, the same loop):

- **The young generation, not the engine's own work, is what a long loop of fast steps waits on.** With the default
  flags, \`node --trace-gc-nvp\` counts about 11 scavenges per run of 10,000 steps, and each promotes 1.2–1.4 MB to the
  old generation (13–15 MB a run, promotion rate 99.8 % of what survives): 47–65 ms of a 140–190 ms run are
  scavenge pauses, and a mark-compact follows every 3–4 runs. The loop allocates about 17.8 KB a step either way (V8's
  sampling heap profiler), and a heap snapshot in the middle of a run holds no more than at its start, so what is
  promoted is not kept: it dies in the old generation.
- **V8 then allocates some of the step's objects straight in the old generation.** \`--trace-pretenuring-statistics\`
  shows two or four allocation sites switching to "tenure" after a few runs, with a survival ratio of 1.0 (in one run: the
  object a node actor answers with and its routing decision); which sites, differs from run to run. With
  \`--no-allocation-site-pretenuring\` the same loop promotes 0.27 MB a run and pauses 5.5 ms for scavenges; with
  \`--max-semi-space-size=64\`, 0.27 MB and 5.8 ms.
- **Plain XState does it too.** A machine of two states that each invoke an actor doing nothing, sent 10,000 events,
  promotes 23.5 MB a run (70 ms of scavenges); the same machine without the invoke promotes 0.01 MB. Switchboard's
  in-memory runs invoke no actor per step (their nodes run as plain promises, \`directMachine\`) and still promote
  13–15 MB a run: what keeps their steps' objects alive through a scavenge was not found.
- **A semi-space of 48 MB or more is where it stops** (one process each, 20 runs): default 137.7 ms a run, 16 MB
  133.1, 32 MB 123.3, 48 MB 79.3, 64 MB 71.8, 96 MB 78.0, 128 MB 76.2; process CPU 182 → 73 ms a run at 64 MB, and
  resident memory 149 → 158 MB.
- **How to use it:** start Node with \`--max-semi-space-size=64\`, or put it in \`NODE_OPTIONS\` (Node accepts it
  there). It must be given when Node starts: \`v8.setFlagsFromString('--max-semi-space-size=64')\` in a running process
  changed nothing (139.8 against 146.3 ms a run). It helps runs of many fast steps; a run that waits on models
  spends its time there, not here. Bare XState gains less from it (its loop also keeps more of each step alive).`;

function sampleInChild(key: ImplementationKey, flags: string[]): Promise<YoungGenerationSample> {
  return forkSample(CHILD, [key, String(STEPS), String(RUNS), BUNDLE], ['--import', 'tsx', ...flags], `the young-generation child for ${key} (${flags.join(' ') || 'default flags'})`);
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);
const loadBefore = loadavg()[0] ?? 0;
const started = Date.now();
const rows: string[] = [];
for (const { key, name } of IMPLEMENTATIONS) {
  const samples = VARIANTS.map(() => [] as YoungGenerationSample[]);
  const ratios = VARIANTS.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
  for (let round = 0; round < ROUNDS; round++) {
    const got: YoungGenerationSample[] = [];
    for (let k = 0; k < VARIANTS.length; k++) {
      const v = (round + k) % VARIANTS.length;
      got[v] = await sampleInChild(key, VARIANTS[v]!.flags);
      log(`${name}, ${VARIANTS[v]!.label}: ${fmt(got[v]!.wallMs)} ms per run, ${fmt(got[v]!.scavengeMs)} ms of scavenges`);
    }
    VARIANTS.forEach((_, v) => {
      samples[v]!.push(got[v]!);
      ratios[v]!.wall.push(got[v]!.wallMs / got[0]!.wallMs);
      ratios[v]!.cpu.push(got[v]!.cpuMs / got[0]!.cpuMs);
    });
  }
  VARIANTS.forEach((variant, v) => {
    const s = samples[v]!;
    const m = (pick: (x: YoungGenerationSample) => number) => median(s.map(pick));
    rows.push(
      `| ${name} | \`${variant.label}\` | ${fmt(m((x) => x.wallMs))} | ${fmt((m((x) => x.wallMs) * 1000) / STEPS, 2)} | ${fmt(m((x) => x.cpuMs))} | ${fmt(m((x) => x.scavenges))} | ${fmt(m((x) => x.scavengeMs))} | ${fmt(m((x) => x.rssMb), 0)} | ${fmt(median(ratios[v]!.wall), 3)}× | ${fmt(median(ratios[v]!.cpu), 3)}× |`,
    );
  });
}
const loadAfter = loadavg()[0] ?? 0;

const table = `## Young generation size (bench/youngGeneration.bench.ts)

Run: \`npm run bench:young\`. The 10,000-step 2-node loop of the engine benchmark (Switchboard as the built
package, \`dist/bundle/index.js\`), ${RUNS} runs one after
another in a fresh child process per sample (warmed up with 5 runs, no forced GC between runs, so the
collector keeps its own rhythm), started with Node's default heap flags or with a larger
\`--max-semi-space-size\` (MB per semi-space of V8's young generation); ${ROUNDS} rounds, the variants in
rotated order; medians, and the median of each round's ratio to the default flags. ${new Date().toISOString()},
Node ${process.version}, 2 cores, load average ${fmt(loadBefore)} at the start and ${fmt(loadAfter)} at the end,
${fmt((Date.now() - started) / 1000, 0)} s in all.

| implementation | Node flags | ms per run | µs per step | CPU ms per run | scavenges per run | scavenge ms per run | RSS MB | wall ÷ default | CPU ÷ default |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}

${FINDINGS}`;

writeResultsSection('youngGeneration', table);
process.stdout.write(`${table}\n`);
