import { loadavg } from 'node:os';
import { implementationLoaders } from './impl/implementations.js';
import { median, pairedRatios } from './measure.js';

/**
 * `npm run bench:typed`: part (c) of `npm run bench` on its own — typed state (a zod schema checked
 * at every put) against untyped state, as back-to-back pairs of the same loop in one process.
 */
const PAIRS = Number(process.env['SWITCHBOARD_BENCH_PAIRS'] ?? 41);
const LOOP_STEPS = 2_000;
const workload = { loopSteps: LOOP_STEPS, chainLength: 5 };
const untyped = (await implementationLoaders.switchboard())(workload);
const typed = (await implementationLoaders.switchboardTyped())(workload);
for (let i = 0; i < 3; i++) await Promise.all([untyped.loop(), typed.loop()]);
const load = loadavg()[0] ?? 0;
const ratios = await pairedRatios(() => untyped.loop(), () => typed.loop(), PAIRS);
const sorted = [...ratios].sort((a, b) => a - b);
const q = (p: number) => sorted[Math.floor(p * (sorted.length - 1))]!.toFixed(3);
process.stdout.write(
  `typed ÷ untyped per step: median ${median(ratios).toFixed(3)} (${PAIRS} back-to-back pairs of a ${LOOP_STEPS}-step loop; quartiles ${q(0.25)}–${q(0.75)}; load ${load.toFixed(1)}–${(loadavg()[0] ?? 0).toFixed(1)})\n`,
);
