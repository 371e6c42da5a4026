import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { wallAndCpuAsItIs } from './measure.js';
import { twoNodeLoop } from './twoNodeLoop.js';

/** The variants bench/steadyOverhead.bench.ts measures, each in a child of its own. */
export type SteadyVariant = 'budget' | 'counting' | 'kept' | 'jsonl';

/** What one child reports: per pair, with ÷ without (wall and process CPU), and the runs' own times. */
export interface SteadySample {
  wall: number[];
  cpu: number[];
  withoutMs: number[];
  withMs: number[];
}

/**
 * `steadyOverheadChild.ts <variant> <pairs> <dist/bundle/index.js>`: a child of bench/steadyOverhead.bench.ts. Runs the
 * 10,000-step loop without and with one recorder (or a budget) back to back, `pairs` times in
 * alternating order, with no forced GC between runs: the collector keeps the rhythm it has in a
 * process that runs loop after loop.
 */
const STEPS = 10_000;
const [variant, pairsArg, bundle] = process.argv.slice(2) as [SteadyVariant, string, string];
const pairs = Number(pairsArg);
// The built package, as an application imports it (see the section's text for why not the sources).
const { END, JsonlTransitionRecorder, StateGraph, TransitionRecorder } = (await import(pathToFileURL(bundle).href)) as typeof import('../src/index.js');
const dir = mkdtempSync(join(tmpdir(), 'sb-steady-'));

const loop = twoNodeLoop({ END, StateGraph }, STEPS);
const budget = { maxCost: 1_000, maxTokens: 1e12, maxIterations: 1e9, maxDuration: 2_000_000_000 };
let files = 0;
const withIt: Record<SteadyVariant, () => Promise<unknown>> = {
  budget: () => loop.run('go', { budget }),
  counting: () => loop.run('go', { recorders: [new TransitionRecorder({ onTransition: () => undefined })] }),
  kept: async () => {
    const recorder = new TransitionRecorder();
    await loop.run('go', { recorders: [recorder] });
    if (recorder.records.length !== STEPS + 1) throw new Error(`kept ${recorder.records.length} records, expected ${STEPS + 1}`);
  },
  jsonl: () => loop.run('go', { recorders: [new JsonlTransitionRecorder(join(dir, `t-${files++}.jsonl`))] }),
};
const without = () => loop.run('go');
if (!Object.hasOwn(withIt, variant)) throw new Error(`unknown variant "${variant}": one of ${Object.keys(withIt).join(', ')}`);

try {
  for (let i = 0; i < 5; i++) {
    await without();
    await withIt[variant]();
  }
  const sample: SteadySample = { wall: [], cpu: [], withoutMs: [], withMs: [] };
  for (let i = 0; i < pairs; i++) {
    const first = await wallAndCpuAsItIs(i % 2 === 0 ? without : withIt[variant]);
    const second = await wallAndCpuAsItIs(i % 2 === 0 ? withIt[variant] : without);
    const [bare, measured] = i % 2 === 0 ? [first, second] : [second, first];
    sample.wall.push(measured[0] / bare[0]);
    sample.cpu.push(measured[1] / bare[1]);
    sample.withoutMs.push(bare[0]);
    sample.withMs.push(measured[0]);
  }
  // The last file the JSONL recorder wrote holds its whole run: one line per transition.
  if (variant === 'jsonl') {
    const lines = readFileSync(join(dir, `t-${files - 1}.jsonl`), 'utf8').split('\n').length - 1;
    if (lines !== STEPS + 1) throw new Error(`the JSONL recorder wrote ${lines} lines, expected ${STEPS + 1}`);
  }
  process.send!(sample);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
