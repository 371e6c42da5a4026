/**
 * The coordinator's dispatch, side by side with the specialists it runs, in one process:
 *  (a) fan-out: one dispatch of 50 specialists whose node waits 20 ms, against the slowest of
 *      them run alone (target ≤ 1.3×), and the same for other task counts;
 *  (b) per specialist: what a small CPU-bound specialist (a 3-node chain) costs inside a dispatch
 *      of 200 — the dispatch's time less an empty dispatch's, divided by 200 — against the same
 *      specialist run alone, one after another and 200 at once (target ≤ 1.2×).
 * Rounds are interleaved (their order rotates) after warm-up; medians are reported. Prints the
 * tables and writes the coordinator section of bench/RESULTS.md.
 *
 *   npm run bench:coordinator
 */
import { loadavg } from 'node:os';
import { Coordinator, END, StateGraph, type TaskResult, type WorkflowContext } from '../src/index.js';
import { collectGarbage, median } from './measure.js';
import { markdownTable } from './report.js';
import { writeResultsSection } from './resultsSection.js';

const SLEEP_MS = 20;
const FAN_OUT = [1, 10, 50, 200] as const;
const CPU_TASKS = 200;
const ROUNDS = 9;
const WARMUP = 2;

const sleeper = new StateGraph({ name: 'sleeper' }).addNode('wait', () => new Promise<string>((resolve) => setTimeout(() => resolve('slept'), SLEEP_MS))).start('wait');

const step = (ctx: WorkflowContext, request: { input: unknown }) => {
  ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
  return `${String(request.input)}.`;
};
const chain = new StateGraph({ name: 'chain' }).addNode('a', step).addNode('b', step).addNode('c', step).start('a').addEdge('a', 'b').addEdge('b', 'c');

/** plan → dispatch → END, dispatching `count` tasks of `kind`. */
function dispatchOf(kind: 'sleeper' | 'chain', count: number) {
  const coordinator = new Coordinator({ specialists: { sleeper, chain } });
  const tasks = Array.from({ length: count }, (_, i) => ({ kind, input: `t${i}` }));
  return new StateGraph({ name: `dispatch-${kind}-${count}` })
    .addNode('plan', coordinator.planNode(() => tasks))
    .addNode('dispatch', coordinator.dispatchNode())
    .start('plan')
    .addEdge('plan', 'dispatch')
    .addEdge('dispatch', END);
}

async function runDispatch(graph: StateGraph, count: number): Promise<void> {
  const run = await graph.run('go');
  const results = run.state.get('specialistResults') as TaskResult[];
  if (run.status !== 'completed' || results.length !== count || results.some((r) => r.status !== 'completed')) {
    throw new Error(`dispatch of ${count} ended ${run.status} with ${results.length} results`);
  }
}

async function runAlone(graph: StateGraph): Promise<void> {
  const run = await graph.run('t0');
  if (run.status !== 'completed') throw new Error(`${graph.name} ended ${run.status}`);
}

/** Wall and CPU milliseconds of one call, after a full GC. CPU time is what the process itself spent (the machine may be shared). */
async function sample(task: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  collectGarbage();
  // GC threads sweep on after a full collection; let them finish so their CPU time is not charged here.
  await new Promise((resolve) => setTimeout(resolve, 5));
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await task();
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

/** Every case once per round, in an order rotated each round, after warm-up rounds; the samples per case. */
async function rounds<K extends string>(cases: Record<K, () => Promise<unknown>>): Promise<Record<K, { wall: number[]; cpu: number[] }>> {
  const keys = Object.keys(cases) as K[];
  const out = Object.fromEntries(keys.map((k) => [k, { wall: [] as number[], cpu: [] as number[] }])) as Record<K, { wall: number[]; cpu: number[] }>;
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const shift = round % keys.length;
    for (const key of [...keys.slice(shift), ...keys.slice(0, shift)]) {
      const { wall, cpu } = await sample(cases[key]);
      if (round < WARMUP) continue;
      out[key].wall.push(wall);
      out[key].cpu.push(cpu);
    }
  }
  return out;
}

const started = Date.now();
const loadAtStart = loadavg()[0]!;

// (a) Fan-out of 20 ms specialists.
const fanCases: Record<string, () => Promise<unknown>> = { alone: () => runAlone(sleeper) };
for (const n of FAN_OUT) {
  const graph = dispatchOf('sleeper', n);
  fanCases[`dispatch${n}`] = () => runDispatch(graph, n);
}
const fan = await rounds(fanCases);

// (b) A CPU-bound specialist inside a dispatch of 200, against the same specialist alone.
const empty = dispatchOf('chain', 0);
const full = dispatchOf('chain', CPU_TASKS);
const cpu = await rounds({
  empty: () => runDispatch(empty, 0),
  dispatch: () => runDispatch(full, CPU_TASKS),
  sequential: async () => {
    for (let i = 0; i < CPU_TASKS; i++) await runAlone(chain);
  },
  together: () => Promise.all(Array.from({ length: CPU_TASKS }, () => runAlone(chain))),
});

const ms = (value: number) => value.toFixed(1);
const us = (value: number) => value.toFixed(0);
const ratio = (value: number) => `${value.toFixed(2)}×`;
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

const wallOf = (key: string) => median(fan[key]?.wall ?? []);
const cpuOf = (key: string) => median(fan[key]?.cpu ?? []);
const alone = wallOf('alone');
const fanRows = FAN_OUT.map((n) => [String(n), ms(wallOf(`dispatch${n}`)), ratio(wallOf(`dispatch${n}`) / alone), ms(cpuOf(`dispatch${n}`)), us((cpuOf(`dispatch${n}`) * 1000) / n)]);
const fan50 = wallOf('dispatch50') / alone;

/** µs per specialist: `wall` or `cpu`. */
const per = (kind: 'wall' | 'cpu') => ({
  inside: ((median(cpu.dispatch[kind]) - median(cpu.empty[kind])) * 1000) / CPU_TASKS,
  sequential: (median(cpu.sequential[kind]) * 1000) / CPU_TASKS,
  together: (median(cpu.together[kind]) * 1000) / CPU_TASKS,
});
const wall = per('wall');
const cpuTime = per('cpu');
const inside = wall.inside / Math.min(wall.sequential, wall.together);
const insideCpu = cpuTime.inside / Math.min(cpuTime.sequential, cpuTime.together);

const tables = [
  `### (a) One dispatch of N specialists whose node waits ${SLEEP_MS} ms, against one of them run alone (${ms(alone)} ms)`,
  '',
  markdownTable(['N', 'dispatch ms (whole run)', '× the slowest alone', 'CPU ms', 'CPU µs per specialist'], fanRows),
  '',
  `### (b) A 3-node specialist inside a dispatch of ${CPU_TASKS}, against the same specialist run alone`,
  '',
  markdownTable(
    ['how', 'µs per specialist', 'CPU µs per specialist'],
    [
      [`inside a dispatch (dispatch ${ms(median(cpu.dispatch.wall))} ms − empty dispatch ${ms(median(cpu.empty.wall))} ms, ÷ ${CPU_TASKS})`, us(wall.inside), us(cpuTime.inside)],
      [`alone, ${CPU_TASKS} one after another`, us(wall.sequential), us(cpuTime.sequential)],
      [`alone, ${CPU_TASKS} at once`, us(wall.together), us(cpuTime.together)],
    ],
  ),
  '',
  `- 50 specialists of ${SLEEP_MS} ms in one dispatch / the slowest alone = ${ratio(fan50)} (target ≤ 1.3×: ${verdict(fan50 <= 1.3)}); ` +
    `with a core to itself the dispatch could take at most ${SLEEP_MS} ms + its CPU time, ${ratio((SLEEP_MS + cpuOf('dispatch50')) / SLEEP_MS)} the sleep`,
  `- A specialist inside a dispatch / the cheaper way of running it alone = ${ratio(inside)} in time, ${ratio(insideCpu)} in CPU time (target ≤ 1.2×: ${verdict(inside <= 1.2)})`,
].join('\n');

const seconds = Math.round((Date.now() - started) / 1000);
console.log(tables);
writeResultsSection(
  'coordinator',
  `## Coordinator dispatch (bench/coordinator.bench.ts)

Measured ${new Date().toISOString()} on Node ${process.version}, 2 cores; 1-minute load average ${loadAtStart.toFixed(2)} at the
start and ${loadavg()[0]!.toFixed(2)} at the end of ${seconds} s (the machine is shared: compare ratios). Median of ${ROUNDS} rounds after 2
warm-up rounds; in each round every case runs once, in a rotated order, after a full GC. A dispatch is one
join actor over N specialist child actors, all started at once; no events are listened to. In (a) the last
specialist's 20 ms begin only once every specialist before it has started, so the dispatch takes about the
sleep plus the CPU time of starting N specialist runs; (b) shows what one specialist run costs inside a
dispatch beside the same run alone.

${tables}`,
);
