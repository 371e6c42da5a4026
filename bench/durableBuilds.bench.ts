import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildArgs } from './buildArgs.js';
import { median } from './measure.js';

/**
 * `npx tsx bench/durableBuilds.bench.ts before=<bundle> after=<bundle> …` (not part of `npm run bench`;
 * it writes nothing): the durable 2-node loop of bench/durable.bench.ts (SQLite) against the same
 * loop in memory, for several builds of the library loaded side by side in one process, round after
 * round in alternating order, so a change is measured against the tree before it under the same
 * load. Each sample is the process CPU time per step of a batch of runs (no forced GC: each batch
 * pays the collections its own garbage causes). Prints, per build, the median µs per step in memory
 * and durable, the median durable ÷ memory ratio, and each build's durable step ÷ the first build's.
 * A build is the path of its `dist/bundle/index.js` (for an older commit: `git worktree add
 * /tmp/before <commit>`, then `npm run build` there with node_modules beside it, or copy the bundle
 * folder next to this checkout's node_modules). Environment: SWITCHBOARD_BENCH_ROUNDS (default 21),
 * SWITCHBOARD_BENCH_STEPS (1,000), SWITCHBOARD_BENCH_BATCH (runs per sample, 5),
 * SWITCHBOARD_BENCH_BIG=1 (a 10 KB value in the state).
 */
const ROUNDS = Number(process.env['SWITCHBOARD_BENCH_ROUNDS'] ?? 21);
const STEPS = Number(process.env['SWITCHBOARD_BENCH_STEPS'] ?? 1_000);
const BATCH = Number(process.env['SWITCHBOARD_BENCH_BATCH'] ?? 5);
const BIG = process.env['SWITCHBOARD_BENCH_BIG'] === '1' ? 'x'.repeat(10_000) : null;
const dir = mkdtempSync(join(tmpdir(), 'sb-bench-durable-builds-'));

interface Build {
  label: string;
  memory: () => Promise<unknown>;
  durable: () => Promise<unknown>;
  close: () => Promise<void>;
  mem: number[];
  dur: number[];
}

// Each build is loaded at run time, untyped.
function buildOf(label: string, sb: any): Build {
  const step = (ctx: any): null => {
    if (BIG !== null && ctx.get('big') === undefined) ctx.put('big', BIG);
    ctx.put('count', (ctx.get('count') ?? 0) + 1);
    return null;
  };
  const graph = new sb.StateGraph({ name: 'loop', maxSteps: STEPS }).addNode('a', step).addNode('b', step).start('a').addEdge('a', 'b').addEdge('b', 'a');
  const store = new sb.SqliteRunStore({ file: join(dir, `${label}.db`) });
  return { label, memory: () => graph.run('go'), durable: () => graph.run('go', { store }), close: () => store.close(), mem: [], dur: [] };
}

/** Process CPU time per step, in µs, of `BATCH` runs back to back. */
async function cpuPerStep(task: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < BATCH; i++) await task();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / BATCH / STEPS;
}

try {
  const builds: Build[] = [];
  for (const { label, index } of buildArgs()) builds.push(buildOf(label, await import(pathToFileURL(index).href)));
  for (const build of builds) {
    for (let i = 0; i < 5; i++) {
      await build.memory();
      await build.durable();
    }
  }
  const load = loadavg()[0] ?? 0;
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      if (round % 2 === 0) {
        build.mem.push(await cpuPerStep(build.memory));
        build.dur.push(await cpuPerStep(build.durable));
      } else {
        build.dur.push(await cpuPerStep(build.durable));
        build.mem.push(await cpuPerStep(build.memory));
      }
    }
  }
  const first = builds[0]!;
  process.stdout.write(`${ROUNDS} rounds of ${BATCH} runs of ${STEPS} steps${BIG === null ? '' : ' (10 KB in state)'}, load ${load.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)}\n`);
  for (const build of builds) {
    const ratio = median(build.dur.map((d, i) => d / build.mem[i]!));
    const againstFirst = median(build.dur.map((d, i) => d / first.dur[i]!));
    process.stdout.write(
      `${build.label}: memory ${median(build.mem).toFixed(2)} µs/step, durable ${median(build.dur).toFixed(2)} µs/step, durable ÷ memory ${ratio.toFixed(3)}, durable ÷ ${first.label}'s ${againstFirst.toFixed(3)}\n`,
    );
  }
  for (const build of builds) await build.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
