import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore, StateGraph, type WorkflowContext } from '../src/index.js';
import { median } from './measure.js';

/**
 * What makes a durable run after a forced GC slower than one back to back (the fresh-heap column of
 * bench/durable.bench.ts): the 2-node loop of 1,000 steps in memory and stored in SQLite, each run
 * after one of three settings, paired with the same run straight after it. `gc`: a full GC just
 * before (no pause); `pause`: 20 ms idle before, no GC; `both`: the two. Run with
 * `node --expose-gc --import tsx --conditions=switchboard-source bench/freshHeapCause.bench.ts`;
 * add `--trace-deopt` to see the optimized functions a full GC throws away (reason: weak objects).
 * Prints medians of 31 rounds; it writes no RESULTS.md section (figures are in the durable section).
 */
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (see the comment at the top)');
const ROUNDS = Number(process.env.SWITCHBOARD_BENCH_ROUNDS ?? 31);
const STEPS = 1000;

const increment = (ctx: WorkflowContext) => (ctx.put('n', (ctx.get<number>('n') ?? 0) + 1), null);
const graph = new StateGraph({ name: 'loop', maxSteps: STEPS }).addNode('a', increment).addNode('b', increment).start('a').addEdge('a', 'b').addEdge('b', 'a');
const dir = mkdtempSync(join(tmpdir(), 'sb-bench-freshheap-'));
const store = new SqliteRunStore({ file: join(dir, 'runs.db') });

async function settle(mode: string): Promise<void> {
  if (mode !== 'pause') gc!();
  await new Promise((resolve) => (mode === 'gc' ? setImmediate(resolve) : setTimeout(resolve, 20)));
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

try {
  for (let i = 0; i < 5; i++) await Promise.all([graph.run('go'), graph.run('go', { store })]);
  for (const mode of ['gc', 'pause', 'both']) {
    const load = loadavg()[0]!;
    const memory = { settled: [] as number[], after: [] as number[] };
    const durable = { settled: [] as number[], after: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      await settle(mode);
      memory.settled.push(await timed(() => graph.run('go')));
      memory.after.push(await timed(() => graph.run('go')));
      await settle(mode);
      durable.settled.push(await timed(() => graph.run('go', { store })));
      durable.after.push(await timed(() => graph.run('go', { store })));
    }
    const ms = (values: number[]) => median(values).toFixed(1);
    process.stdout.write(
      `${mode.padEnd(5)} (load ${load.toFixed(1)}): memory ${ms(memory.settled)} ms, then ${ms(memory.after)} ms back to back; ` +
        `durable ${ms(durable.settled)} ms, then ${ms(durable.after)} ms back to back\n`,
    );
  }
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
