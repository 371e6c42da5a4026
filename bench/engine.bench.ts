import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { RESULTS_FILE, writeResultsSection } from './resultsSection.js';
import { loadavg } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Implementation } from './impl/Implementation.js';
import { implementationKeys, implementationLoaders, type ImplementationKey } from './impl/implementations.js';
import { concurrently, interleaved, median, pairedRatios } from './measure.js';
import { measureMemory } from './memory.js';
import { resultsFile, resultTables, type BenchResults } from './report.js';

/**
 * `npm run bench`: Switchboard against a plain async loop, a bare XState v5 machine and LangGraph.js,
 * measured side by side in this one process (interleaved rounds after a warm-up), with memory
 * measured in one child process per implementation. Prints the tables and writes bench/RESULTS.md.
 * Progress goes to stderr, results to stdout.
 */
const LOOP_STEPS = 10_000;
const CHAIN_LENGTH = 5;
const CONCURRENCY = 1_000;
const WARMUP_ROUNDS = 1;
const ROUNDS = 5;
const MEMORY_REPETITIONS = 3;
/** (d) The larger batch, measured for memory only, for the implementations that finish it in seconds. */
const BIG_CONCURRENCY = 10_000;
const BIG_KEYS: readonly ImplementationKey[] = ['plain', 'xstate', 'switchboard'];

const started = performance.now();
const loadAtStart = loadavg()[0] ?? 0;
const workload = { loopSteps: LOOP_STEPS, chainLength: CHAIN_LENGTH };
const impls = {} as Record<ImplementationKey, Implementation>;
for (const key of implementationKeys) impls[key] = (await implementationLoaders[key]())(workload);
const log = (line: string) => process.stderr.write(`${line}\n`);

function expect(impl: Implementation, what: string, counts: number[], expected: number): void {
  if (counts.some((count) => count !== expected)) {
    throw new Error(`${impl.name} ${what}: counters ended at ${[...new Set(counts)].join(', ')}, expected ${expected}`);
  }
}

log(`(a) ${LOOP_STEPS}-step loop: ${WARMUP_ROUNDS} warm-up + ${ROUNDS} rounds`);
const loopMs = await interleaved(
  async (key) => expect(impls[key], 'loop', [await impls[key].loop()], LOOP_STEPS),
  {
    keys: implementationKeys,
    warmupRounds: WARMUP_ROUNDS,
    rounds: ROUNDS,
    onSample: (key, round, ms) => log(`  round ${round + 1} ${impls[key].name}: ${((ms * 1000) / LOOP_STEPS).toFixed(2)} µs/step`),
  },
);

log(`(b) ${CONCURRENCY} concurrent ${CHAIN_LENGTH}-node chains: ${WARMUP_ROUNDS} warm-up + ${ROUNDS} rounds`);
const batchMs = await interleaved(
  async (key) => expect(impls[key], 'chain', await concurrently(CONCURRENCY, () => impls[key].chain()), CHAIN_LENGTH),
  {
    keys: implementationKeys,
    warmupRounds: WARMUP_ROUNDS,
    rounds: ROUNDS,
    onSample: (key, round, ms) => log(`  round ${round + 1} ${impls[key].name}: ${ms.toFixed(1)} ms`),
  },
);

const TYPED_PAIRS = 31;
const TYPED_LOOP_STEPS = 2_000;
log(`(c) typed state against untyped: ${TYPED_PAIRS} back-to-back pairs of a ${TYPED_LOOP_STEPS}-step loop`);
const pairWorkload = { loopSteps: TYPED_LOOP_STEPS, chainLength: CHAIN_LENGTH };
const untypedPair = (await implementationLoaders.switchboard())(pairWorkload);
const typedPair = (await implementationLoaders.switchboardTyped())(pairWorkload);
for (let i = 0; i < 3; i++) await Promise.all([untypedPair.loop(), typedPair.loop()]);
const typedRatios = await pairedRatios(
  async () => expect(untypedPair, 'loop', [await untypedPair.loop()], TYPED_LOOP_STEPS),
  async () => expect(typedPair, 'loop', [await typedPair.loop()], TYPED_LOOP_STEPS),
  TYPED_PAIRS,
);
log(`  typed ÷ untyped per pair: median ${median(typedRatios).toFixed(3)}, range ${Math.min(...typedRatios).toFixed(3)}–${Math.max(...typedRatios).toFixed(3)}`);

log(`(b) memory: ${MEMORY_REPETITIONS} child processes per implementation, one at a time`);
const memory = await measureMemory(
  implementationKeys,
  MEMORY_REPETITIONS,
  { ...workload, concurrency: CONCURRENCY },
  (s) => log(`  ${impls[s.key].name}: peak RSS ${(s.peakRss / 2 ** 20).toFixed(0)} MB, peak heap ${(s.peakHeap / 2 ** 20).toFixed(0)} MB, ${s.ms.toFixed(0)} ms`),
);

log(`(d) memory of ${BIG_CONCURRENCY} concurrent chains: ${MEMORY_REPETITIONS} child processes per implementation, one at a time`);
const bigMemory = await measureMemory(
  BIG_KEYS,
  MEMORY_REPETITIONS,
  { ...workload, concurrency: BIG_CONCURRENCY },
  (s) => log(`  ${impls[s.key].name}: peak RSS ${(s.peakRss / 2 ** 20).toFixed(0)} MB, peak heap ${(s.peakHeap / 2 ** 20).toFixed(0)} MB, ${s.ms.toFixed(0)} ms`),
);

/** The commit measured, and whether src/ differed from it (read-only git queries). */
function describeSource(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' }).trim();
  try {
    const dirty = git('status', '--porcelain', '--', 'src') !== '';
    return `commit ${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes in src/' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

const require = createRequire(import.meta.url);
const versionOf = (name: string) => (require(`${name}/package.json`) as { version: string }).version;
const results: BenchResults = {
  names: Object.fromEntries(implementationKeys.map((key) => [key, impls[key].name])) as Record<ImplementationKey, string>,
  keys: implementationKeys,
  loopSteps: LOOP_STEPS,
  chainLength: CHAIN_LENGTH,
  concurrency: CONCURRENCY,
  rounds: ROUNDS,
  memoryRepetitions: MEMORY_REPETITIONS,
  loopMs,
  batchMs,
  typed: { pairs: TYPED_PAIRS, loopSteps: TYPED_LOOP_STEPS, ratios: typedRatios },
  memory,
  bigConcurrency: BIG_CONCURRENCY,
  bigMemory,
  versions: {
    switchboard: (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version,
    xstate: versionOf('xstate'),
    '@langchain/langgraph': versionOf('@langchain/langgraph'),
    '@langchain/core': versionOf('@langchain/core'),
  },
  seconds: (performance.now() - started) / 1000,
  loadAtStart,
  source: describeSource(),
};

const tables = resultTables(results);
console.log(tables);
writeResultsSection('engine', resultsFile(results, tables));
log(`\nwrote ${RESULTS_FILE} (median Switchboard loop: ${median(loopMs.switchboard).toFixed(0)} ms per run)`);
