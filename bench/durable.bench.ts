/**
 * Durable runs: the per-step cost of a run checkpointed to SQLite after every node against the
 * same graph in memory (measured side by side, interleaved), and the bytes stored per step for a
 * 1,000-step loop whose state holds a 10 KB value. Prints the table and writes its section of
 * bench/RESULTS.md.
 *
 *   npm run bench:durable
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore, StateGraph, type WorkflowContext } from '../src/index.js';
import { collectGarbage, median } from './measure.js';
import { writeResultsSection } from './resultsSection.js';

const STEPS = 1_000;
const ROUNDS = 7;
const BIG = 'x'.repeat(10_000);

function loop(withBigValue: boolean): StateGraph {
  const step = (ctx: WorkflowContext) => {
    if (withBigValue && ctx.get('big') === undefined) ctx.put('big', BIG);
    ctx.put('count', (ctx.get<number>('count') ?? 0) + 1);
    return null;
  };
  return new StateGraph({ name: withBigValue ? 'loop-10kb' : 'loop', maxSteps: STEPS })
    .addNode('a', step)
    .addNode('b', step)
    .start('a')
    .addEdge('a', 'b')
    .addEdge('b', 'a');
}

const dir = mkdtempSync(join(tmpdir(), 'sb-bench-durable-'));
const file = join(dir, 'runs.db');
const store = new SqliteRunStore({ file });
const graph = loop(false);

const perStep: Record<'memory' | 'sqlite', number[]> = { memory: [], sqlite: [] };
const kinds = ['memory', 'sqlite'] as const;
for (let round = 0; round <= ROUNDS; round++) {
  for (const kind of round % 2 === 0 ? kinds : [...kinds].reverse()) {
    collectGarbage();
    const started = process.hrtime.bigint();
    const run = await graph.run('go', kind === 'sqlite' ? { store } : {});
    const us = Number(process.hrtime.bigint() - started) / 1e3 / STEPS;
    if (run.steps !== STEPS) throw new Error(`${kind} run made ${run.steps} steps`);
    if (round > 0) perStep[kind].push(us); // round 0 warms up
  }
}

const big = await loop(true).run('go', { store });
const size = await store.sizeOf(big.runId);
const stored = size.snapshotBytes + size.eventBytes + size.journalBytes;
const fullStateEveryStep = STEPS * (BIG.length + 200);
await store.close();
const dbBytes = ['', '-wal'].reduce((sum, suffix) => sum + (statSync(`${file}${suffix}`, { throwIfNoEntry: false })?.size ?? 0), 0);
rmSync(dir, { recursive: true, force: true });

const mem = median(perStep.memory);
const sql = median(perStep.sqlite);
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const table = `| Run of a 2-node loop, ${STEPS.toLocaleString('en')} steps | µs/step (median of ${ROUNDS}) | × in memory |
|---|---|---|
| in memory | ${mem.toFixed(1)} | 1.00× |
| SQLite, checkpoint after every node | ${sql.toFixed(1)} | ${(sql / mem).toFixed(2)}× |

| ${STEPS.toLocaleString('en')}-step loop holding a 10 KB value | bytes |
|---|---|
| latest snapshot (the one row kept per run) | ${kb(size.snapshotBytes)} |
| event log, all steps | ${kb(size.eventBytes)} (${(size.eventBytes / STEPS).toFixed(0)} B per step) |
| total stored for the run | ${kb(stored)} (${(stored / STEPS).toFixed(0)} B per step) |
| database file incl. WAL (both benchmark runs) | ${kb(dbBytes)} |
| a full-state checkpoint per step would store at least | ${kb(fullStateEveryStep)} (${(fullStateEveryStep / stored).toFixed(0)}× more) |`;

console.log(table);
writeResultsSection(
  'durable',
  `## Durable runs (bench/durable.bench.ts)

Measured ${new Date().toISOString()} on Node ${process.version}. The stored run keeps one row with the latest
snapshot (overwritten at every checkpoint) and appends each step's events with its state delta, so the
bytes stored per step follow the delta, not the size of the state.

${table}`,
);
