import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildArgs } from './buildArgs.js';
import { median, quartiles, wallAndCpu } from './measure.js';

/**
 * `npx tsx bench/overheadBuilds.bench.ts before=<bundle> after=<bundle> …` (not part of `npm run bench`;
 * it writes nothing): the overheads of bench/overheadCpu.bench.ts (budgets, transition recorders on
 * a 10,000-step loop, with ÷ without as paired ratios of process CPU time and wall time) for several
 * builds of the library loaded side by side in one process, pair after pair in rotated order, so a
 * change is measured against the tree before it under the same load. A build is the path of its
 * `dist/bundle/index.js` (for an older commit: `git worktree add /tmp/before <commit>`, then
 * `npm run build` there with node_modules beside it). SWITCHBOARD_BENCH_PAIRS (default 21) pairs
 * per variant and build; SWITCHBOARD_BENCH_ONLY picks variants (comma-separated:
 * kept, keptRead, counting, jsonl, budgetGraph, budgetFlow, onEvent, memoryRecorder). `kept` reads
 * only the count of the records; `keptRead` reads every record too, so it also pays for building
 * them as objects; `onEvent` is a listener that does nothing (every event stamped for it) and
 * `memoryRecorder` a MemoryRecorder (every event stamped, redacted and kept).
 */
type Task = () => Promise<unknown>;
const STEPS = 10_000;
const PAIRS = Number(process.env['SWITCHBOARD_BENCH_PAIRS'] ?? 21);
const only = process.env['SWITCHBOARD_BENCH_ONLY']?.split(',');
const dir = mkdtempSync(join(tmpdir(), 'sb-bench-builds-'));

// Each build is loaded at run time, untyped.
function variantsOf(sb: any): Record<string, [Task, Task]> {
  const { END, JsonlTransitionRecorder, MemoryRecorder, StateGraph, TransitionRecorder, Workflow, step } = sb;
  const inc = (ctx: any): null => {
    ctx.put('count', (ctx.get('count') ?? 0) + 1);
    return null;
  };
  const done = (ctx: any) => (ctx.get('count') ?? 0) >= STEPS;
  const twoNodes = new StateGraph({ name: 'loop', maxSteps: STEPS }).addNode('a', inc).addNode('b', inc).start('a')
    .addConditionalEdges('a', (ctx: any) => (done(ctx) ? END : 'b'))
    .addConditionalEdges('b', (ctx: any) => (done(ctx) ? END : 'a'));
  const budget = { maxCost: 1_000, maxTokens: 1e12, maxIterations: 1e9, maxDuration: 2_000_000_000 };
  const oneNode = new StateGraph({ name: 'loop', maxSteps: STEPS + 1 }).addNode('inc', inc).start('inc')
    .addConditionalEdges('inc', (ctx: any) => (done(ctx) ? END : 'inc'));
  const flow = Workflow.define('loop').repeatUntil((_c: unknown, n: number) => n >= STEPS / 2).step(step('inc', (_c: unknown, n: number) => n + 1)).end();
  const kept = async () => {
    const recorder = new TransitionRecorder();
    await twoNodes.run('go', { recorders: [recorder] });
    if (recorder.records.length !== STEPS + 1) throw new Error(`kept ${recorder.records.length} records, expected ${STEPS + 1}`);
  };
  const keptRead = async () => {
    const recorder = new TransitionRecorder();
    await twoNodes.run('go', { recorders: [recorder] });
    let tokens = 0;
    for (const record of recorder.records) tokens += record.tokens;
    if (recorder.records.length !== STEPS + 1 || tokens !== 0) throw new Error(`kept ${recorder.records.length} records, expected ${STEPS + 1}`);
  };
  return {
    kept: [() => twoNodes.run('go'), kept],
    keptRead: [() => twoNodes.run('go'), keptRead],
    counting: [() => twoNodes.run('go'), () => twoNodes.run('go', { recorders: [new TransitionRecorder({ onTransition: () => undefined })] })],
    jsonl: [() => twoNodes.run('go'), () => twoNodes.run('go', { recorders: [new JsonlTransitionRecorder(join(dir, `t-${Math.random()}.jsonl`))] })],
    budgetGraph: [() => oneNode.run('go'), () => oneNode.run('go', { budget })],
    budgetFlow: [() => flow.run(0, { maxIterations: STEPS }), () => flow.run(0, { maxIterations: STEPS, budget })],
    onEvent: [() => twoNodes.run('go'), () => twoNodes.run('go', { onEvent: () => undefined })],
    memoryRecorder: [() => twoNodes.run('go'), () => twoNodes.run('go', { recorders: [new MemoryRecorder()] })],
  };
}

const summary = (xs: number[]) => `${median(xs).toFixed(3)} (${quartiles(xs)})`;

try {
  const builds: { label: string; variants: Record<string, [Task, Task]> }[] = [];
  for (const { label, index } of buildArgs()) builds.push({ label, variants: variantsOf(await import(pathToFileURL(index).href)) });
  const names = Object.keys(builds[0]!.variants).filter((name) => only === undefined || only.includes(name));
  for (let i = 0; i < 3; i++) for (const build of builds) for (const name of names) for (const task of build.variants[name]!) await task();
  for (const name of names) {
    const samples = builds.map(() => ({ wall: [] as number[], cpu: [] as number[], without: [] as number[] }));
    const load = loadavg()[0] ?? 0;
    for (let i = 0; i < PAIRS; i++) {
      for (let k = 0; k < builds.length; k++) {
        const b = (i + k) % builds.length;
        const [without, withIt] = builds[b]!.variants[name]!;
        // Alternating order within the pair: neither side always runs first.
        const first = await wallAndCpu(i % 2 === 0 ? without : withIt);
        const second = await wallAndCpu(i % 2 === 0 ? withIt : without);
        const [bare, measured] = i % 2 === 0 ? [first, second] : [second, first];
        samples[b]!.wall.push(measured[0] / bare[0]);
        samples[b]!.cpu.push(measured[1] / bare[1]);
        samples[b]!.without.push((bare[1] * 1000) / STEPS);
      }
    }
    const after = loadavg()[0] ?? 0;
    builds.forEach((build, k) => {
      const s = samples[k]!;
      process.stdout.write(`${name} [${build.label}]: CPU ${summary(s.cpu)}, wall ${summary(s.wall)}, without ${median(s.without).toFixed(2)} µs CPU per step; ${PAIRS} pairs, load ${load.toFixed(1)} → ${after.toFixed(1)}\n`);
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
