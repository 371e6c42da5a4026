import { loadavg } from 'node:os';
import { assign, createActor, fromPromise, setup, toPromise } from 'xstate';
import { END, StateGraph, Workflow, step } from 'switchboard';
import { interleaved, median } from './measure.js';
import { writeResultsSection } from './resultsSection.js';

/**
 * The typed Workflow builder against a StateGraph of the same shape and a bare XState machine,
 * side by side in one process (interleaved rounds after a warm-up): (a) a 10,000-pass
 * `repeatUntil` loop, (b) a 3-branch `parallel`, run many times. Reported per loop pass and per
 * parallel run, with the load average.
 */
const PASSES = 10_000;
const PARALLEL_RUNS = 300;
const ROUNDS = 3;
const log = (line: string) => process.stderr.write(`${line}\n`);
const loadAtStart = loadavg()[0] ?? 0;

// (a) Loop: check before each pass, then the body.
const wfLoop = Workflow.define<number>('loop').repeatUntil((_c, n) => n >= PASSES).step(step('inc', (_c, n: number) => n + 1)).end();
const graphLoop = new StateGraph({ name: 'loop', maxSteps: 2 * PASSES + 4 })
  .addNode('check', () => null)
  .addNode('inc', (ctx) => {
    ctx.put('n', ((ctx.get('n') as number | undefined) ?? 0) + 1);
    return null;
  })
  .start('check')
  .addConditionalEdges('check', (ctx) => (((ctx.get('n') as number | undefined) ?? 0) >= PASSES ? END : 'inc'))
  .addEdge('inc', 'check');
const bareLoop = setup({
  types: { context: {} as { n: number } },
  actors: { inc: fromPromise(async ({ input }: { input: number }) => input + 1) },
}).createMachine({
  context: { n: 0 },
  initial: 'check',
  states: {
    check: { always: [{ guard: ({ context }) => context.n >= PASSES, target: 'done' }, { target: 'inc' }] },
    inc: { invoke: { src: 'inc', input: ({ context }) => context.n, onDone: { target: 'check', actions: assign({ n: ({ event }) => event.output }) } } },
    done: { type: 'final' },
  },
});

// (b) Three branches at once on the same input.
const branch = (name: string) => step(name, async (_c, n: number) => n + 1);
const wfParallel = Workflow.define<number>('par').gather(branch('a'), branch('b'), branch('c'));
const graphParallel = new StateGraph({ name: 'par' }).addNode('fan', async (_ctx, req) => {
  const n = Number(req.input);
  const outs = await Promise.all([n + 1, n + 1, n + 1].map(async (x) => x));
  return { rawResponse: outs };
}).start('fan');
const region = (id: string) => ({ id, initial: 'run' as const, states: { run: { invoke: { src: 'branch' as const, input: 1, onDone: 'done' } }, done: { type: 'final' as const } } });
const bareParallel = setup({ actors: { branch: fromPromise(async ({ input }: { input: number }) => input + 1) } }).createMachine({
  initial: 'fork',
  states: { fork: { type: 'parallel', states: { a: region('a'), b: region('b'), c: region('c') }, onDone: 'joined' }, joined: { type: 'final' } },
});

type Key = 'workflow' | 'stategraph' | 'xstate';
const keys: Key[] = ['workflow', 'stategraph', 'xstate'];
const loopTask = async (key: Key) => {
  if (key === 'workflow') {
    const run = await wfLoop.run(0, { maxIterations: PASSES + 1 });
    if (run.output !== PASSES) throw new Error(`workflow loop ended ${run.status} at ${String(run.output)}`);
  } else if (key === 'stategraph') {
    const run = await graphLoop.run('go');
    if (run.state.get('n') !== PASSES) throw new Error(`graph loop ended ${run.status}`);
  } else {
    await toPromise(createActor(bareLoop).start());
  }
};
const parallelTask = async (key: Key) => {
  for (let i = 0; i < PARALLEL_RUNS; i++) {
    if (key === 'workflow') await wfParallel.run(1);
    else if (key === 'stategraph') await graphParallel.run('1');
    else await toPromise(createActor(bareParallel).start());
  }
};

log(`workflow bench: ${PASSES}-pass loop and ${PARALLEL_RUNS} 3-branch parallel runs, ${ROUNDS} rounds (load ${loadAtStart.toFixed(1)})`);
const loop = await interleaved(loopTask, { keys, warmupRounds: 1, rounds: ROUNDS, onSample: (k, r, ms) => log(`  loop ${k} #${r}: ${ms.toFixed(0)} ms`) });
const par = await interleaved(parallelTask, { keys, warmupRounds: 1, rounds: ROUNDS, onSample: (k, r, ms) => log(`  parallel ${k} #${r}: ${ms.toFixed(0)} ms`) });
const loadAtEnd = loadavg()[0] ?? 0;

const perPass = (k: Key) => (median(loop[k]) * 1000) / PASSES;
const perRun = (k: Key) => (median(par[k]) * 1000) / PARALLEL_RUNS;
const rows = keys.map((k) => `| ${k} | ${perPass(k).toFixed(1)} | ${(perPass(k) / perPass('xstate')).toFixed(2)}× | ${perRun(k).toFixed(1)} | ${(perRun(k) / perRun('xstate')).toFixed(2)}× |`);
const table = [
  `## Typed workflows (bench/workflow.bench.ts)`,
  '',
  `Median of ${ROUNDS} interleaved rounds after a warm-up; load average ${loadAtStart.toFixed(1)} at the start, ${loadAtEnd.toFixed(1)} at the end (2 cores, shared).`,
  `A loop pass is a check plus the body (two node executions in the workflow and the StateGraph, one promise actor in bare XState);`,
  `the StateGraph's parallel is one node running three promises (it has no fork), bare XState's a parallel state of three invoked promises.`,
  '',
  '| engine | µs per loop pass | ÷ bare XState | µs per 3-branch parallel run | ÷ bare XState |',
  '| --- | ---: | ---: | ---: | ---: |',
  ...rows,
].join('\n');
process.stdout.write(`${table}\n`);
writeResultsSection('workflow', table);
