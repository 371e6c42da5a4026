import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection. `npm run bench` starts Node without `--expose-gc`, so the flag is set
 * at run time and `gc` is taken from a fresh context (where V8 installs it once the flag is on).
 */
export const collectGarbage: () => void = (() => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/** The middle value (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The lower and upper quartiles of `xs`, as text: \`1.020–1.075\`. */
export function quartiles(xs: readonly number[]): string {
  const sorted = [...xs].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.floor(p * (sorted.length - 1))]!.toFixed(3);
  return `${q(0.25)}–${q(0.75)}`;
}

/** Wall milliseconds and process CPU milliseconds (process.cpuUsage: other threads' garbage collection included) one call takes, after a full GC. */
export async function wallAndCpu(task: () => Promise<unknown>): Promise<[wall: number, cpu: number]> {
  collectGarbage();
  return wallAndCpuAsItIs(task);
}

/** {@link wallAndCpu} without the GC first: the collector keeps its own rhythm, as in a process that runs task after task. */
export async function wallAndCpuAsItIs(task: () => Promise<unknown>): Promise<[wall: number, cpu: number]> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await task();
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return [wall, (used.user + used.system) / 1e3];
}

/** Milliseconds one call takes, after a full GC so the previous task's garbage is not charged to it. */
export async function timeOnce(task: () => Promise<unknown>): Promise<number> {
  collectGarbage();
  const start = process.hrtime.bigint();
  await task();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export interface InterleavedOptions<K extends string> {
  keys: readonly K[];
  /** Untimed rounds first, so every engine is JIT-compiled before it is measured. */
  warmupRounds: number;
  rounds: number;
  /** Called after each timed task (progress output). */
  onSample?: (key: K, round: number, ms: number) => void;
}

/**
 * Runs `task(key)` for every key, round after round, rotating the order each round so no engine
 * always runs first (on a cold cache) or last (after the others' garbage). Returns the timed
 * milliseconds per key, one per round.
 */
export async function interleaved<K extends string>(
  task: (key: K) => Promise<unknown>,
  options: InterleavedOptions<K>,
): Promise<Record<K, number[]>> {
  const { keys, warmupRounds, rounds } = options;
  const samples = Object.fromEntries(keys.map((key) => [key, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < warmupRounds + rounds; round++) {
    const shift = round % keys.length;
    const order = [...keys.slice(shift), ...keys.slice(0, shift)];
    for (const key of order) {
      const ms = await timeOnce(() => task(key));
      if (round < warmupRounds) continue;
      samples[key].push(ms);
      options.onSample?.(key, round - warmupRounds, ms);
    }
  }
  return samples;
}

/** Runs `task` `count` times at once and resolves when all have finished. */
export function concurrently<T>(count: number, task: () => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, task));
}

/**
 * A paired comparison for a small difference on a shared, noisy machine: `pairs` times, `a` and
 * `b` run back to back (in alternating order), and the ratio b ÷ a of each pair is kept. Load that
 * drifts over seconds hits both halves of a pair alike, so the median ratio stays steady where
 * medians taken separately do not.
 */
export async function pairedRatios(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  pairs: number,
  /** How one run is measured (default: wall time after a full GC, {@link timeOnce}). */
  time: (task: () => Promise<unknown>) => Promise<number> = timeOnce,
): Promise<number[]> {
  const ratios: number[] = [];
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      const ta = await time(a);
      ratios.push((await time(b)) / ta);
    } else {
      const tb = await time(b);
      ratios.push(tb / (await time(a)));
    }
  }
  return ratios;
}
