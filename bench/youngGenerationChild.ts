import { PerformanceObserver, constants } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { countOf } from './impl/countOf.js';
import type { Implementation } from './impl/Implementation.js';
import { implementationLoaders, isImplementationKey } from './impl/implementations.js';
import { median, wallAndCpuAsItIs } from './measure.js';
import { twoNodeLoop, type LoopLibrary } from './twoNodeLoop.js';

/** What one child reports for one implementation, under the heap flags it was started with. */
export interface YoungGenerationSample {
  /** Wall milliseconds per run of the loop (median of the timed runs). */
  wallMs: number;
  /** Process CPU milliseconds per run (the garbage collector's helper threads included). */
  cpuMs: number;
  /** Milliseconds per run the young-generation collections (scavenges) took, and how many there were. */
  scavengeMs: number;
  scavenges: number;
  /** Resident memory at the end, MB. */
  rssMb: number;
}

/**
 * `youngGenerationChild.ts <implementation> <loopSteps> <runs> [dist/bundle/index.js]`: a child of
 * bench/youngGeneration.bench.ts. Warms the 2-node loop up, then times `runs` runs of it one after
 * another, without a forced GC between them (the collector's own rhythm is what is measured), and
 * sends the medians to its parent. With a bundle, Switchboard is the built package, as an
 * application imports it, instead of the sources.
 */
const [key, stepsArg, runsArg, bundle] = process.argv.slice(2);
if (!isImplementationKey(key)) throw new Error(`unknown implementation "${key}"`);
const loopSteps = Number(stepsArg);
const runs = Number(runsArg);
const implementation = key === 'switchboard' && bundle !== undefined ? await builtLoop(bundle) : (await implementationLoaders[key]())({ loopSteps, chainLength: 5 });

/** The loop of bench/impl/switchboard.ts on the built package. */
async function builtLoop(path: string): Promise<Implementation> {
  const graph = twoNodeLoop((await import(pathToFileURL(path).href)) as LoopLibrary, loopSteps);
  const loop = async () => countOf(await graph.run('go'));
  return { name: 'Switchboard (build)', loop, chain: loop };
}

let scavengeMs = 0;
let scavenges = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if ((entry as { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MINOR) continue;
    scavengeMs += entry.duration;
    scavenges++;
  }
});

for (let i = 0; i < 5; i++) await implementation.loop();
observer.observe({ entryTypes: ['gc'] });
const wall: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < runs; i++) {
  let count = 0;
  const [wallMs, cpuMs] = await wallAndCpuAsItIs(async () => {
    count = await implementation.loop();
  });
  wall.push(wallMs);
  cpu.push(cpuMs);
  if (count !== loopSteps) throw new Error(`${key} counted ${count}, expected ${loopSteps}`);
}
// GC entries are delivered on a later turn of the event loop.
await new Promise((resolve) => setTimeout(resolve, 50));
observer.disconnect();
const sample: YoungGenerationSample = {
  wallMs: median(wall),
  cpuMs: median(cpu),
  scavengeMs: scavengeMs / runs,
  scavenges: scavenges / runs,
  rssMb: process.memoryUsage().rss / 1e6,
};
process.send!(sample);
