import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { buildArgs } from './buildArgs.js';
import { median, wallAndCpu } from './measure.js';

/**
 * `npx tsx bench/spreadBuilds.bench.ts before=<bundle> after=<bundle> …` (not part of `npm run bench`;
 * it writes nothing): runs whose hot paths built objects with a leading spread, for several builds
 * of the library, round after round in rotated order, so a change is measured against the tree
 * before it under the same load. Each sample is a fresh process that loads one build, runs the
 * variant 3 times untimed, then RUNS times (process CPU after a GC each) and gives the median; printed
 * per build: the median of those samples and the median of the per-round ratios to the first build.
 * One process per sample, not both builds in one process: there the builds share V8's object shapes,
 * and the before build's spread-built step records slowed the after build's literal ones (a 1,000-step
 * checkpointed loop: after alone 0.82 of before alone, after beside before 0.99). A build is the path
 * of its `dist/bundle/index.js` (its `testing.js` beside it); for an older commit: `git worktree add
 * /tmp/before <commit>`, node_modules beside it, `node scripts/build.mjs`. Environment:
 * SWITCHBOARD_BENCH_ROUNDS (default 11), SWITCHBOARD_BENCH_RUNS (7), SWITCHBOARD_BENCH_ONLY
 * (comma-separated variants: steps, otel, otelReplay, tools, otelAgent, otelAgentReplay, dispatch, fanOut, gather).
 *
 * - steps: a 1,000-step 2-node loop with `checkpointingStepRunner` on a MemoryRunStore (two step
 *   records a step);
 * - otel: a 2,000-step 2-node loop with an OpenTelemetryRecorder (a span a node);
 * - otelReplay: that loop's events (captured once) handed to a new OpenTelemetryRecorder, as
 *   replayRun hands a stored run's events;
 * - tools: an agent answering after 50 model turns of 4 tool calls each (ScriptedModel);
 * - otelAgent: the same agent as a graph node, with an OpenTelemetryRecorder; otelAgentReplay: its
 *   events handed to a new recorder, as otelReplay, ten times (250 model and tool call spans each);
 * - dispatch: a coordinator dispatch of 200 3-node specialists with a no-op onEvent;
 * - fanOut: a typed workflow's parallel(itemsOf, stepFor) over 1,000 items;
 * - gather: 100 runs of a typed workflow gathering three async steps.
 */
type Task = () => Promise<unknown>;
const ROUNDS = Number(process.env['SWITCHBOARD_BENCH_ROUNDS'] ?? 11);
const WARM = 3;
const RUNS = Number(process.env['SWITCHBOARD_BENCH_RUNS'] ?? 7);
const VARIANTS = ['steps', 'otel', 'otelReplay', 'tools', 'otelAgent', 'otelAgentReplay', 'dispatch', 'fanOut', 'gather'];
const only = process.env['SWITCHBOARD_BENCH_ONLY']?.split(',');
const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('bench');

// Each build is loaded at run time, untyped.
function variantsOf(sb: any, testing: any): Record<string, Task> {
  const { Agent, AgentNode, Coordinator, END, MemoryRunStore, OpenTelemetryRecorder, StateGraph, checkpointingStepRunner, tool } = sb;
  const loop = (steps: number) => {
    const inc = (ctx: any): null => {
      ctx.put('count', (ctx.get('count') ?? 0) + 1);
      return null;
    };
    const done = (ctx: any) => (ctx.get('count') ?? 0) >= steps;
    return new StateGraph({ name: 'loop', maxSteps: steps }).addNode('a', inc).addNode('b', inc).start('a')
      .addConditionalEdges('a', (ctx: any) => (done(ctx) ? END : 'b'))
      .addConditionalEdges('b', (ctx: any) => (done(ctx) ? END : 'a'));
  };
  const checked = async (run: Promise<any>, status: string) => {
    const { status: got } = await run;
    if (got !== status) throw new Error(`run ended ${got}, expected ${status}`);
  };
  const steps = loop(1_000);
  const traced = loop(2_000);
  let runs = 0;
  const replayed: unknown[] = [];
  const agentEvents: unknown[] = [];
  const lookup = tool({ name: 'lookup', description: 'Looks a code up', parameters: z.object({ q: z.string() }), execute: ({ q }: { q: string }) => ({ q, hit: true }) });
  const agentOf = () => {
    const turns: unknown[] = [];
    for (let t = 0; t < 50; t++) turns.push({ toolCalls: Array.from({ length: 4 }, (_, i) => ({ name: 'lookup', arguments: { q: `q${t}.${i}` } })), usage: { inputTokens: 10, outputTokens: 4 } });
    turns.push({ text: 'All found.', usage: { inputTokens: 10, outputTokens: 3 } });
    return new Agent({ name: 'finder', instructions: 'Find every code.', model: new testing.ScriptedModel(turns), tools: [lookup], maxIterations: 60 });
  };
  const agentGraph = () => new StateGraph({ name: 'agent' }).addNode('find', new AgentNode(agentOf())).start('find');
  const step = (ctx: any, request: { input: unknown }) => {
    ctx.put('n', (ctx.get('n') ?? 0) + 1);
    return `${String(request.input)}.`;
  };
  const chain = new StateGraph({ name: 'chain' }).addNode('a', step).addNode('b', step).addNode('c', step).start('a').addEdge('a', 'b').addEdge('b', 'c');
  const coordinator = new Coordinator({ specialists: { chain } });
  const tasks = Array.from({ length: 200 }, (_, i) => ({ kind: 'chain', input: `t${i}` }));
  const dispatch = new StateGraph({ name: 'dispatch' }).addNode('plan', coordinator.planNode(() => tasks)).addNode('dispatch', coordinator.dispatchNode())
    .start('plan').addEdge('plan', 'dispatch').addEdge('dispatch', END);
  const { Workflow, step: wfStep } = sb;
  const square = wfStep('square', (_c: unknown, x: number) => x * x);
  const fanOut = Workflow.define('fan-out').parallel((_c: unknown, n: number) => Array.from({ length: n }, (_, i) => i), () => square);
  const plus = (k: number) => wfStep(`plus${k}`, async (_c: unknown, n: number) => n + k);
  const gather = Workflow.define('gather').gather(plus(1), plus(2), plus(3));
  return {
    steps: () => checked(steps.run('go', { runId: `steps-${runs++}`, stepRunner: checkpointingStepRunner(new MemoryRunStore()) }), 'completed'),
    otel: () => {
      exporter.reset();
      return checked(traced.run('go', { recorders: [new OpenTelemetryRecorder({ tracer })] }), 'completed');
    },
    otelReplay: async () => {
      // What replayRun does with a stored run's events, without the store: each event to a new recorder.
      if (replayed.length === 0) await traced.run('go', { recorders: [{ record: (event: unknown) => replayed.push(event) }] });
      exporter.reset();
      const recorder = new OpenTelemetryRecorder({ tracer });
      for (const event of replayed) recorder.record(event);
    },
    tools: () => checked(agentOf().run('go'), 'completed'),
    otelAgentReplay: async () => {
      if (agentEvents.length === 0) await agentGraph().run('go', { recorders: [{ record: (event: unknown) => agentEvents.push(event) }] });
      for (let i = 0; i < 10; i++) {
        exporter.reset();
        const recorder = new OpenTelemetryRecorder({ tracer });
        for (const event of agentEvents) recorder.record(event);
      }
    },
    otelAgent: () => {
      exporter.reset();
      return checked(agentGraph().run('go', { recorders: [new OpenTelemetryRecorder({ tracer })] }), 'completed');
    },
    dispatch: () => checked(dispatch.run('go', { onEvent: () => undefined }), 'completed'),
    fanOut: () => checked(fanOut.run(1_000), 'completed'),
    gather: async () => {
      for (let i = 0; i < 100; i++) await checked(gather.run(1), 'completed');
    },
  };
}

/** Child mode: one build, one variant; prints the median CPU ms of `runs` runs after `warm` untimed ones. */
async function child(index: string, name: string): Promise<void> {
  const testing = await import(pathToFileURL(resolve(index, '../testing.js')).href);
  const task = variantsOf(await import(pathToFileURL(resolve(index)).href), testing)[name]!;
  for (let i = 0; i < WARM; i++) await task();
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) cpu.push((await wallAndCpu(task))[1]);
  process.stdout.write(`${median(cpu)}\n`);
}

const sample = (index: string, name: string): number => {
  const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1]!, '--child', index, name], { encoding: 'utf8' });
  return Number(out.trim().split('\n').at(-1));
};

if (process.argv[2] === '--child') await child(process.argv[3]!, process.argv[4]!);
else {
  const builds = buildArgs();
  const names = VARIANTS.filter((name) => only === undefined || only.includes(name));
  for (const name of names) {
    const cpu = builds.map(() => [] as number[]);
    const load = loadavg()[0] ?? 0;
    for (let i = 0; i < ROUNDS; i++) {
      for (let k = 0; k < builds.length; k++) {
        const b = (i + k) % builds.length;
        cpu[b]!.push(sample(builds[b]!.index, name));
      }
    }
    const after = loadavg()[0] ?? 0;
    builds.forEach((build, k) => {
      const ratio = median(cpu[k]!.map((ms, i) => ms / cpu[0]![i]!));
      process.stdout.write(`${name} [${build.label}]: ${median(cpu[k]!).toFixed(2)} ms CPU a run, ${ratio.toFixed(3)} of ${builds[0]!.label} (paired); ${ROUNDS} rounds, load ${load.toFixed(1)} → ${after.toFixed(1)}\n`);
    });
  }
}
