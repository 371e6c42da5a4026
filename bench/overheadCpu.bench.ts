import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { END, JsonlTransitionRecorder, StateGraph, TransitionRecorder, Workflow, step, type BudgetOptions, type WorkflowContext } from '../src/index.js';
import { median, quartiles, wallAndCpu } from './measure.js';

/**
 * `npx tsx --conditions=switchboard-source bench/overheadCpu.bench.ts` (not part of `npm run bench`;
 * it writes nothing): the overheads of bench/transitions.bench.ts and bench/budget.bench.ts as
 * paired ratios of both wall time and process CPU time (process.cpuUsage: garbage collection on
 * other threads included), since on a shared machine the wall clock also charges other processes'
 * work. SWITCHBOARD_BENCH_PAIRS (default 21) pairs per variant; SWITCHBOARD_BENCH_ONLY picks
 * variants by name (comma-separated).
 */
const STEPS = 10_000;
const PAIRS = Number(process.env['SWITCHBOARD_BENCH_PAIRS'] ?? 21);
const inc = (ctx: WorkflowContext): null => {
  ctx.put('count', (ctx.get<number>('count') ?? 0) + 1);
  return null;
};
const done = (ctx: WorkflowContext) => (ctx.get<number>('count') ?? 0) >= STEPS;
// The loop of bench/transitions.bench.ts.
const twoNodes = new StateGraph({ name: 'loop', maxSteps: STEPS }).addNode('a', inc).addNode('b', inc).start('a')
  .addConditionalEdges('a', (ctx) => (done(ctx) ? END : 'b'))
  .addConditionalEdges('b', (ctx) => (done(ctx) ? END : 'a'));
// The loops of bench/budget.bench.ts.
const BUDGET: BudgetOptions = { maxCost: 1_000, maxTokens: 1e12, maxIterations: 1e9, maxDuration: 2_000_000_000 };
const oneNode = new StateGraph({ name: 'loop', maxSteps: STEPS + 1 }).addNode('inc', inc).start('inc')
  .addConditionalEdges('inc', (ctx) => (done(ctx) ? END : 'inc'));
const flow = Workflow.define<number>('loop').repeatUntil((_c, n) => n >= STEPS / 2).step(step('inc', (_c, n: number) => n + 1)).end();
const dir = mkdtempSync(join(tmpdir(), 'sb-bench-cpu-'));

const variants: Record<string, [() => Promise<unknown>, () => Promise<unknown>]> = {
  'TransitionRecorder (kept)': [() => twoNodes.run('go'), () => twoNodes.run('go', { recorders: [new TransitionRecorder()] })],
  'TransitionRecorder (counting)': [() => twoNodes.run('go'), () => twoNodes.run('go', { recorders: [new TransitionRecorder({ onTransition: () => undefined })] })],
  JsonlTransitionRecorder: [() => twoNodes.run('go'), () => twoNodes.run('go', { recorders: [new JsonlTransitionRecorder(join(dir, `t-${Math.random()}.jsonl`))] })],
  'budget, StateGraph': [() => oneNode.run('go'), () => oneNode.run('go', { budget: BUDGET })],
  'budget, Workflow': [() => flow.run(0, { maxIterations: STEPS }), () => flow.run(0, { maxIterations: STEPS, budget: BUDGET })],
};
const only = process.env['SWITCHBOARD_BENCH_ONLY']?.split(',');
const names = Object.keys(variants).filter((name) => only === undefined || only.includes(name));

try {
  for (let i = 0; i < 3; i++) for (const name of names) for (const task of variants[name]!) await task();
  for (const name of names) {
    const [without, withIt] = variants[name]!;
    const wall: number[] = [];
    const cpu: number[] = [];
    const load = loadavg()[0] ?? 0;
    for (let i = 0; i < PAIRS; i++) {
      // Alternating order: neither side always runs first.
      const first = i % 2 === 0 ? await wallAndCpu(without) : await wallAndCpu(withIt);
      const second = i % 2 === 0 ? await wallAndCpu(withIt) : await wallAndCpu(without);
      const [a, b] = i % 2 === 0 ? [first, second] : [second, first];
      wall.push(b[0] / a[0]);
      cpu.push(b[1] / a[1]);
    }
    process.stdout.write(`${name}: wall ${median(wall).toFixed(3)} (${quartiles(wall)}), CPU ${median(cpu).toFixed(3)} (${quartiles(cpu)}); ${PAIRS} pairs, load ${load.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
