import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonlRecorder, MemoryRecorder, OpenTelemetryRecorder, StateGraph, redactEvent, secretValues, type RunOptions, type WorkflowEvent } from '../src/index.js';
import { interleaved, median } from './measure.js';

/**
 * `npx tsx bench/trace.bench.ts`: what tracing costs a run. A 2-node loop of LOOP_STEPS steps runs
 * with nobody listening, with a no-op `onEvent` (raw events, no redaction), and with each recorder
 * (every event redacted once, then recorded), interleaved round by round in this one process; then
 * the cost of redacting one event of each kind. Prints a table; nothing is asserted.
 */
const LOOP_STEPS = 2_000;
const ROUNDS = 5;
const dir = mkdtempSync(join(tmpdir(), 'sb-trace-bench-'));
const log = (line: string) => process.stdout.write(`${line}\n`);

function loopGraph() {
  return new StateGraph({ name: 'loop', maxSteps: LOOP_STEPS })
    .addNode('a', (ctx) => {
      ctx.put('count', ((ctx.get('count') as number | undefined) ?? 0) + 1);
      return { outputText: 'ping: a short answer with a few words in it' };
    })
    .addNode('b', () => ({ outputText: 'pong' }))
    .start('a')
    .addEdge('a', 'b')
    .addEdge('b', 'a');
}

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('bench');
const setups = {
  'nobody listens': (): RunOptions => ({}),
  'onEvent (raw)': (): RunOptions => ({ onEvent: () => {} }),
  'recorder (discards)': (): RunOptions => ({ recorders: [{ record: () => {} }] }),
  MemoryRecorder: (): RunOptions => ({ recorders: [new MemoryRecorder()] }),
  JsonlRecorder: (): RunOptions => ({ recorders: [new JsonlRecorder(join(dir, `${Math.random()}.jsonl`))] }),
  OpenTelemetryRecorder: (): RunOptions => {
    exporter.reset();
    return { recorders: [new OpenTelemetryRecorder({ tracer })] };
  },
} as const;
type Setup = keyof typeof setups;
const keys = Object.keys(setups) as Setup[];
const graph = loopGraph();
const samples = await interleaved(
  async (key) => {
    const run = await graph.run('go', setups[key]());
    if (run.status !== 'max-steps') throw new Error(`${key}: ${run.status}`);
  },
  { keys, warmupRounds: 1, rounds: ROUNDS },
);
const base = median(samples['nobody listens']);
log(`\n${LOOP_STEPS}-step loop, median of ${ROUNDS} rounds (µs per step, ratio to nobody listening)`);
for (const key of keys) {
  const ms = median(samples[key]);
  log(`  ${key.padEnd(22)} ${((ms * 1000) / LOOP_STEPS).toFixed(1).padStart(7)} µs/step  ×${(ms / base).toFixed(2)}`);
}

// The cost of redacting one event, per kind, over the events of one short traced run.
const events: WorkflowEvent[] = [];
await new StateGraph({ name: 'sample', maxSteps: 4 })
  .addNode('a', (ctx) => {
    ctx.put('profile', { name: 'Ada', orders: Array.from({ length: 20 }, (_, i) => ({ id: `SO${i}`, total: i * 10 })) });
    return { outputText: 'A fairly ordinary answer of one sentence.' };
  })
  .start('a')
  .addEdge('a', 'a')
  .run('go', { onEvent: (e) => events.push(e) });
const secrets = secretValues();
const N = 20_000;
log(`\nredactEvent, µs per event (${N} calls each, ${secrets.length} secret values in the environment)`);
for (const type of [...new Set(events.map((e) => e.type))]) {
  const event = events.find((e) => e.type === type)!;
  for (let i = 0; i < 2_000; i++) redactEvent(event, secrets);
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) redactEvent(event, secrets);
  const us = Number(process.hrtime.bigint() - start) / 1e3 / N;
  log(`  ${type.padEnd(16)} ${us.toFixed(2).padStart(6)} µs  (${JSON.stringify(event).length} bytes)`);
}
rmSync(dir, { recursive: true, force: true });
