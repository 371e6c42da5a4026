import { readFileSync, writeFileSync } from 'node:fs';
import { GCProfiler } from 'node:v8';
import { implementationLoaders, isImplementationKey, type ImplementationKey } from './impl/implementations.js';
import { collectGarbage, concurrently } from './measure.js';

/** What one child reports: bytes, and the batch's wall time. */
export interface MemorySample {
  key: ImplementationKey;
  ms: number;
  /** RSS and heapUsed after imports, a small warm-up and two full GCs, just before the batch. */
  baselineRss: number;
  baselineHeap: number;
  /** The kernel's RSS high-water mark during the batch (see `resetPeakRss`). */
  peakRss: number;
  /** How `peakRss` was read: `VmHWM` after a reset, or the process's lifetime `maxRSS`. */
  rssSource: 'VmHWM' | 'maxRSS';
  /** The largest heapUsed V8 reported before any GC during the batch, or at its end. */
  peakHeap: number;
  /** Garbage collections during the batch. */
  gcs: number;
}

/**
 * Resets the kernel's RSS high-water mark (Linux: writing 5 to /proc/self/clear_refs), so the
 * VmHWM read afterwards is the peak of the batch alone, not of module loading. An interval
 * sampler cannot do this job: a batch of promise-chained runs is one long stretch of microtasks,
 * and timers do not fire until it is over.
 */
function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

function readHighWaterMark(): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return match?.[1] === undefined ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

/**
 * Child process entry: measures one implementation's memory for one batch of concurrent chain
 * runs, alone in its process. Launched by `memory.ts` with `--expose-gc`; arguments: key, loop
 * steps, chain length, concurrency.
 */
async function main(): Promise<void> {
  const [key, loopArg, chainArg, countArg] = process.argv.slice(2);
  if (!isImplementationKey(key)) throw new Error(`memoryChild: unknown implementation "${key}"`);
  const chainLength = Number(chainArg);
  const impl = (await implementationLoaders[key]())({ loopSteps: Number(loopArg), chainLength });

  // A small warm-up compiles the hot paths without setting the peak the batch is to set.
  await concurrently(10, () => impl.chain());
  collectGarbage();
  collectGarbage();
  const baseline = process.memoryUsage();
  const reset = resetPeakRss();
  const profiler = new GCProfiler();
  profiler.start();

  const start = process.hrtime.bigint();
  const counts = await concurrently(Number(countArg), () => impl.chain());
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const endHeap = process.memoryUsage().heapUsed;
  const hwm = readHighWaterMark();
  const gcs = profiler.stop()?.statistics ?? [];
  if (counts.some((c) => c !== chainLength)) throw new Error(`${impl.name}: a chain run did not execute every node`);

  const useHwm = reset && hwm !== null;
  const result: MemorySample = {
    key,
    ms,
    baselineRss: baseline.rss,
    baselineHeap: baseline.heapUsed,
    peakRss: useHwm ? hwm : process.resourceUsage().maxRSS * 1024,
    rssSource: useHwm ? 'VmHWM' : 'maxRSS',
    peakHeap: Math.max(endHeap, ...gcs.map((gc) => gc.beforeGC.heapStatistics.usedHeapSize)),
    gcs: gcs.length,
  };
  process.send?.(result);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
