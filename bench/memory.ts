import { fileURLToPath } from 'node:url';
import { forkSample } from './forkSample.js';
import type { ImplementationKey } from './impl/implementations.js';
import type { MemorySample } from './memoryChild.js';

const CHILD = fileURLToPath(new URL('./memoryChild.ts', import.meta.url));

export interface MemoryRunOptions {
  loopSteps: number;
  chainLength: number;
  concurrency: number;
}

/** Forks one child (tsx, `--expose-gc`) that measures one batch of `key`, and resolves with its report. */
export function measureInChild(key: ImplementationKey, options: MemoryRunOptions): Promise<MemorySample> {
  const args = [key, options.loopSteps, options.chainLength, options.concurrency].map(String);
  return forkSample(CHILD, args, ['--import', 'tsx', '--expose-gc'], `memory child for ${key}`);
}

/**
 * Measures every key `repetitions` times, one child at a time (never two at once, so they do not
 * compete for the two cores), rotating the order each repetition.
 */
export async function measureMemory(
  keys: readonly ImplementationKey[],
  repetitions: number,
  options: MemoryRunOptions,
  onSample?: (sample: MemorySample) => void,
): Promise<Record<ImplementationKey, MemorySample[]>> {
  const results = Object.fromEntries(keys.map((key) => [key, [] as MemorySample[]])) as Record<ImplementationKey, MemorySample[]>;
  for (let rep = 0; rep < repetitions; rep++) {
    const shift = rep % keys.length;
    for (const key of [...keys.slice(shift), ...keys.slice(0, shift)]) {
      const sample = await measureInChild(key, options);
      results[key].push(sample);
      onSample?.(sample);
    }
  }
  return results;
}
