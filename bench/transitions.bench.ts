import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { END, JsonlTransitionRecorder, MemoryRecorder, StateGraph, TransitionRecorder, type TraceRecorder, type WorkflowContext } from '../src/index.js';
import { median, pairedRatios } from './measure.js';
import { writeResultsSection } from './resultsSection.js';

/**
 * `npm run bench:transitions` (and part of `npm run bench`): what recording every step transition
 * costs a 10,000-step loop, as back-to-back pairs of the same loop without and with the recorder
 * (ratio with ÷ without per pair, median of the pairs). Also, for comparison, the same loop with a
 * MemoryRecorder (every event redacted and kept), and the JSONL transition recorder (batched
 * synchronous appends). Transition recorders take the light path (unstamped events, see
 * `HopListener`); the no-op onEvent listener shows what building the stamped events costs. Stored runs derive their transitions from the event log they already
 * write, so they pay nothing more.
 */
const PAIRS = Number(process.env['SWITCHBOARD_BENCH_PAIRS'] ?? 21);
const STEPS = 10_000;

function increment(ctx: WorkflowContext): null {
  ctx.put('count', (ctx.get<number>('count') ?? 0) + 1);
  return null;
}
const done = (ctx: WorkflowContext) => (ctx.get<number>('count') ?? 0) >= STEPS;
const graph = new StateGraph({ name: 'loop', maxSteps: STEPS })
  .addNode('a', increment)
  .addNode('b', increment)
  .start('a')
  .addConditionalEdges('a', (ctx) => (done(ctx) ? END : 'b'))
  .addConditionalEdges('b', (ctx) => (done(ctx) ? END : 'a'));

async function loop(recorders: readonly TraceRecorder[] = [], expected = 0): Promise<void> {
  const run = await graph.run('go', { recorders });
  if (run.status !== 'completed' || run.steps !== STEPS) throw new Error(`loop ended ${run.status} after ${run.steps} steps`);
  for (const recorder of recorders) {
    const got = recorder instanceof TransitionRecorder ? recorder.records.length : expected;
    if (got !== expected) throw new Error(`the recorder kept ${got} transitions, expected ${expected}`);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'sb-bench-transitions-'));
const variants: { name: string; recorders: () => TraceRecorder[] }[] = [
  { name: 'TransitionRecorder (records kept in memory)', recorders: () => [new TransitionRecorder()] },
  { name: 'TransitionRecorder counting (onTransition, nothing kept)', recorders: () => [new TransitionRecorder({ onTransition: () => undefined })] },
  { name: 'for comparison: a no-op onEvent listener (the engine builds its events, nobody keeps them)', recorders: () => [] },
  { name: 'JsonlTransitionRecorder (batched appends)', recorders: () => [new JsonlTransitionRecorder(join(dir, `t-${Math.random()}.jsonl`))] },
  { name: 'for comparison: MemoryRecorder (every event redacted and kept)', recorders: () => [new MemoryRecorder()] },
];

try {
  for (let i = 0; i < 3; i++) {
    await loop();
    for (const v of variants) await graph.run('go', { recorders: v.recorders(), onEvent: () => undefined });
  }
  const rows: string[] = [];
  const loadBefore = loadavg()[0] ?? 0;
  for (const v of variants) {
    const load = loadavg()[0] ?? 0;
    const ratios = await pairedRatios(
      () => loop(),
      () =>
        v.name.includes('no-op onEvent')
          ? graph.run('go', { onEvent: () => undefined })
          : v.recorders()[0] instanceof TransitionRecorder && !v.name.includes('counting')
            ? loop(v.recorders(), STEPS + 1)
            : graph.run('go', { recorders: v.recorders() }),
      PAIRS,
    );
    const sorted = [...ratios].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.floor(p * (sorted.length - 1))]!.toFixed(3);
    const row = `| ${v.name} | **${median(ratios).toFixed(3)}×** | ${q(0.25)}–${q(0.75)} | ${load.toFixed(1)} |`;
    rows.push(row);
    process.stdout.write(`${v.name}: with ÷ without ${median(ratios).toFixed(3)} (quartiles ${q(0.25)}–${q(0.75)}; ${PAIRS} pairs of a ${STEPS}-step loop; load ${load.toFixed(1)})\n`);
  }
  writeResultsSection(
    'transitions',
    `## Transition recording (bench/transitions.bench.ts)

Run: \`npm run bench:transitions\` (part of \`npm run bench\`). A 2-node loop of ${STEPS.toLocaleString('en')} steps
(\`ctx.put\` / \`ctx.get\` node bodies, a router per node), run without a recorder and with one,
back to back in ${PAIRS} pairs (alternating order); the ratio with ÷ without of each pair, median and
quartiles. Goal: under 1.10× for transition recording. 2 cores, Node ${process.version}, load average
${loadBefore.toFixed(1)} at the start (per row below, at the row's start).

| recorder | with ÷ without (median) | quartiles | load |
| --- | --- | --- | --- |
${rows.join('\n')}

Without any recorder a run builds no events at all (nothing listens), so the default costs nothing.
Transition recorders take the light path (\`TraceRecorder.hops\`): the engine hands them its events
unstamped (no envelope, sequence number, span ids, copy or redaction) and reads the clock only for
the events that end a step; the JSONL recorder appends in batches (256 lines, a run's end, 1 s).
Stored runs derive their transitions from the event log they already write (\`storedTransitions\`),
so they add no write per step.`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
