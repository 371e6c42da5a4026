import { cpus, loadavg, totalmem, type } from 'node:os';
import type { ImplementationKey } from './impl/implementations.js';
import type { MemorySample } from './memoryChild.js';
import { median } from './measure.js';

export interface BenchResults {
  names: Record<ImplementationKey, string>;
  keys: readonly ImplementationKey[];
  loopSteps: number;
  chainLength: number;
  concurrency: number;
  rounds: number;
  memoryRepetitions: number;
  /** Milliseconds per loop run, one per round. */
  loopMs: Record<ImplementationKey, number[]>;
  /** Milliseconds per batch of concurrent chain runs, one per round. */
  batchMs: Record<ImplementationKey, number[]>;
  memory: Record<ImplementationKey, MemorySample[]>;
  /** (d) The larger batch: how many runs at once, and the memory of the implementations measured at that size. */
  bigConcurrency: number;
  bigMemory: Partial<Record<ImplementationKey, MemorySample[]>>;
  /** Typed ÷ untyped time of back-to-back pairs of a shorter loop (the paired measurement of the typed-state overhead). */
  typed: { pairs: number; loopSteps: number; ratios: number[] };
  versions: Record<string, string>;
  seconds: number;
  /** 1-minute load average when the benchmark started (the machine may be shared). */
  loadAtStart: number;
  /** The source measured: commit, and whether src/ had uncommitted changes. */
  source: string;
}

/** A markdown table with padded columns, readable as plain text too. */
export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const MB = 1024 * 1024;
const fixed = (value: number, digits: number) => value.toFixed(digits);
const times = (value: number) => `${value >= 10 ? value.toFixed(0) : value >= 0.1 ? value.toFixed(2) : value.toPrecision(2)}×`;
const mb = (bytes: number) => fixed(bytes / MB, 0);

/** The two result tables and the target lines, as markdown. */
export function resultTables(r: BenchResults): string {
  const perStep = (key: ImplementationKey) => (median(r.loopMs[key]) * 1000) / r.loopSteps;
  const batch = (key: ImplementationKey) => median(r.batchMs[key]);
  const mem = (key: ImplementationKey, pick: (s: MemorySample) => number) => median(r.memory[key].map(pick));

  const stepRows = r.keys.map((key) => {
    const us = r.loopMs[key].map((ms) => (ms * 1000) / r.loopSteps);
    return [
      r.names[key],
      fixed(perStep(key), 2),
      `${fixed(Math.min(...us), 2)}–${fixed(Math.max(...us), 2)}`,
      times(perStep(key) / perStep('xstate')),
      times(perStep('langgraph') / perStep(key)),
    ];
  });
  const batchRows = r.keys.map((key) => [
    r.names[key],
    fixed(batch(key), 1),
    times(batch(key) / batch('xstate')),
    times(batch('langgraph') / batch(key)),
    `${mb(mem(key, (s) => s.peakRss))} (+${mb(mem(key, (s) => s.peakRss - s.baselineRss))})`,
    `${mb(mem(key, (s) => s.peakHeap))} (+${mb(mem(key, (s) => s.peakHeap - s.baselineHeap))})`,
  ]);

  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const sbStep = perStep('switchboard') / perStep('xstate');
  const lgStep = perStep('langgraph') / perStep('switchboard');
  const sbBatch = batch('switchboard') / batch('xstate');
  const lgBatch = batch('langgraph') / batch('switchboard');
  const typedBatch = batch('switchboardTyped') / batch('switchboard');
  const typedPaired = median(r.typed.ratios);
  const sortedRatios = [...r.typed.ratios].sort((x, y) => x - y);
  const quartile = (q: number) => sortedRatios[Math.min(sortedRatios.length - 1, Math.floor(q * sortedRatios.length))]!;
  const bigKeys = r.keys.filter((key) => (r.bigMemory[key]?.length ?? 0) > 0);
  const big = (key: ImplementationKey, pick: (s: MemorySample) => number) => median(r.bigMemory[key]!.map(pick));
  const bigRows = bigKeys.map((key) => [
    r.names[key],
    `${mb(big(key, (s) => s.peakRss))} (+${mb(big(key, (s) => s.peakRss - s.baselineRss))})`,
    times(big(key, (s) => s.peakRss) / big('xstate', (s) => s.peakRss)),
    `${mb(big(key, (s) => s.peakHeap))} (+${mb(big(key, (s) => s.peakHeap - s.baselineHeap))})`,
    fixed(big(key, (s) => s.ms), 0),
    times(big(key, (s) => s.ms) / big('xstate', (s) => s.ms)),
  ]);
  const bigRss = bigKeys.includes('switchboard') ? big('switchboard', (s) => s.peakRss) / big('xstate', (s) => s.peakRss) : NaN;
  const rssBatch = mem('switchboard', (s) => s.peakRss) / mem('xstate', (s) => s.peakRss);
  return [
    `### (a) Per step: 2-node loop, ${r.loopSteps.toLocaleString('en')} steps per run (median of ${r.rounds} interleaved rounds)`,
    '',
    markdownTable(['Implementation', 'µs/step', 'range', '× bare XState', 'LangGraph ÷ this'], stepRows),
    '',
    `### (b) ${r.concurrency.toLocaleString('en')} concurrent runs of a ${r.chainLength}-node chain (time: median of ${r.rounds} interleaved rounds; memory: median of ${r.memoryRepetitions} separate child processes)`,
    '',
    markdownTable(
      ['Implementation', 'time ms', '× bare XState', 'LangGraph ÷ this', 'peak RSS MB (+over baseline)', 'peak heapUsed MB (+over baseline)'],
      batchRows,
    ),
    '',
    `### (d) Memory of ${r.bigConcurrency.toLocaleString('en')} concurrent runs of the ${r.chainLength}-node chain (median of ${r.memoryRepetitions} separate child processes each)`,
    '',
    markdownTable(['Implementation', 'peak RSS MB (+over baseline)', 'RSS × bare XState', 'peak heapUsed MB (+over baseline)', 'batch ms', 'time × bare XState'], bigRows),
    '',
    `- Per step: Switchboard / bare XState = ${times(sbStep)} (target ≤ 1.3×: ${verdict(sbStep <= 1.3)}); ` +
      `LangGraph / Switchboard = ${times(lgStep)} (target ≥ 10×: ${verdict(lgStep >= 10)})`,
    `- ${r.concurrency.toLocaleString('en')} concurrent: Switchboard / bare XState = ${fixed(sbBatch, 2)}× (target ≤ 1.1×: ${verdict(sbBatch <= 1.1)}); ` +
      `LangGraph / Switchboard = ${fixed(lgBatch, 1)}× (target ≥ 12×: ${verdict(lgBatch >= 12)}); ` +
      `peak RSS Switchboard / bare XState = ${fixed(rssBatch, 2)}×, LangGraph / Switchboard = ${times(mem('langgraph', (s) => s.peakRss) / mem('switchboard', (s) => s.peakRss))}`,
    `- ${r.bigConcurrency.toLocaleString('en')} concurrent: peak RSS Switchboard / bare XState = ${fixed(bigRss, 2)}× (target ≤ 1.1×: ${verdict(bigRss <= 1.1)})`,
    `- Typed state (a zod schema checked at every put) ÷ untyped state, per step: ${fixed(typedPaired, 3)}× ` +
      `(median of ${r.typed.pairs} back-to-back pairs of a ${r.typed.loopSteps.toLocaleString('en')}-step loop, quartiles ${fixed(quartile(0.25), 3)}–${fixed(quartile(0.75), 3)}; ` +
      `target ≤ 1.10×: ${verdict(typedPaired <= 1.1)}); ${times(perStep('switchboardTyped') / perStep('switchboard'))} from the separate medians of (a), ` +
      `${times(typedBatch)} for the ${r.concurrency.toLocaleString('en')} concurrent chains of (b)`,
  ].join('\n');
}

/** RESULTS.md: machine facts, method, and the tables. */
export function resultsFile(r: BenchResults, tables: string): string {
  const cpu = cpus();
  const rssSources = [...new Set(Object.values<MemorySample[]>(r.memory).flat().map((s) => s.rssSource))].join(', ');
  return `# Engine benchmark results

Generated by \`npm run bench\` (bench/engine.bench.ts). Numbers are from one run on the machine below;
compare ratios, not absolute times, across machines.

## Machine

- Date: ${new Date().toISOString()}
- Node ${process.version} on ${type()} ${process.arch}; ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? 'unknown model'}); ${fixed(totalmem() / 1024 ** 3, 1)} GB RAM
- ${Object.entries(r.versions).map(([name, version]) => `${name} ${version}`).join(', ')}
- Source: ${r.source}
- Whole benchmark: ${fixed(r.seconds, 0)} s; 1-minute load average ${fixed(r.loadAtStart, 2)} at the start, ${fixed(loadavg()[0] ?? 0, 2)} at the end
  (above 0 means other processes shared the ${cpu.length} cores; the interleaved rounds spread that noise over all of them)

## Method

- Five implementations of the same graphs, each built once: a plain async while loop; a bare XState v5
  machine (node state invoking a \`fromPromise\` actor, \`onDone\` assigns into context and goes to a
  routing state of guarded \`always\` transitions, step-count fuse); Switchboard (\`new StateGraph()\`,
  \`ctx.put/get\`, \`graph.run()\`); Switchboard with a declared state (\`state: { count: z.number().int().nonnegative() }\`,
  so every put is checked by zod as well as for JSON; the untyped row checks JSON only); LangGraph.js (\`StateGraph\` with an annotated state, \`invoke()\`,
  no checkpointer, \`recursionLimit\` raised). Every node body reads a counter and writes it plus one;
  every run's final counter is checked.
- (a) The loop a → b → a … ends when the counter reaches ${r.loopSteps.toLocaleString('en')} (both routers check it;
  Switchboard's \`maxSteps\` and the bare machine's fuse are set to the same number).
- (c) Typed ÷ untyped state: the two Switchboard rows differ by one zod check per put, far less than
  the noise of a shared machine between rounds, so that ratio is also measured in ${r.typed.pairs} pairs run back
  to back (order alternating, a GC before each) on a ${r.typed.loopSteps.toLocaleString('en')}-step loop; the median of the per-pair
  ratios is the figure the target is checked against.
- Timing: one process; one warm-up round, then ${r.rounds} rounds, each running every implementation once, in
  an order rotated each round; a full GC before each timed task; the median is reported.
- Memory: for each implementation, ${r.memoryRepetitions} child processes (one at a time, \`--expose-gc\`) that import
  only that implementation, warm up with 10 runs, GC, then run the batch. Peak RSS is the kernel's
  high-water mark for the batch (${rssSources}: /proc/self/clear_refs is reset just before it). Peak heapUsed
  is the largest used heap V8 reported before any GC during the batch (\`v8.GCProfiler\`) or at its end.
  An interval sampler of \`process.memoryUsage()\` was tried and never fired: each batch runs as one
  unbroken chain of microtasks, so timers wait until it is over. "+over baseline" subtracts the
  value measured after warm-up and GC, just before the batch. The baseline includes the code each
  child imported: Switchboard's entry point loads every subsystem, about 40 MB more than XState alone.
- (d) The same memory measurement with ${r.bigConcurrency.toLocaleString('en')} runs at once, for ${Object.keys(r.bigMemory).map((key) => r.names[key as ImplementationKey]).join(', ')}
  (LangGraph.js would take minutes per child at this size). Its batch time is from the same child
  processes (one per implementation at a time, with the GC profiler on), so it is a rougher ratio than (b).

## Results

${tables}
`;
}
