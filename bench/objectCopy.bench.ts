import { withFields } from '../src/graph/withFields.js';
import { median } from './measure.js';

/**
 * `npx tsx bench/objectCopy.bench.ts` (not part of `npm run bench`; it writes nothing): why the
 * engine stamps its events with `withFields` and not with a spread. Each way of building
 * `{ ...event, ...envelope }` (an event of one of four shapes plus the eight envelope fields), and a
 * spread with fewer new keys, timed in rounds of 200,000 calls after a warm-up; prints the median ns
 * per call. On Node 20 (V8 11.3) an object begun with a spread takes every key added after it on a
 * slow path.
 */
const CALLS = 200_000;
const ROUNDS = Number(process.env['SWITCHBOARD_BENCH_ROUNDS'] ?? 7);
const events = [
  { type: 'run.started', graph: 'g', request: { input: 'go' } },
  { type: 'node.started', nodeId: 'a', step: 1, request: { input: 'go' } },
  { type: 'model.delta', model: 'm', iteration: 1, text: 'hi', agent: 'w', nodeId: 'a' },
  { type: 'node.completed', nodeId: 'a', step: 1, result: null, durationMs: 3, delta: { set: {}, deleted: [] } },
];
const envelope = (seq: number) => ({ runId: 'r', seq, at: 1, traceId: 't', spanId: 's', parentSpanId: null, path: 'root', nodeId: 'a' });

const ways: Record<string, (event: object, seq: number) => object> = {
  '{ ...event, <8 envelope keys> }': (e, seq) => ({ ...e, runId: 'r', seq, at: 1, traceId: 't', spanId: 's', parentSpanId: null, path: 'root', nodeId: 'a' }),
  '{ ...event, ...envelope }': (e, seq) => ({ ...e, ...envelope(seq) }),
  'withFields(event, envelope)': (e, seq) => withFields(e, envelope(seq)),
  'Object.assign({}, event, envelope)': (e, seq) => Object.assign({}, e, envelope(seq)),
  '{ ...event, seq } (one new key)': (e, seq) => ({ ...e, seq }),
  '{ ...event, type } (a key it has)': (e) => ({ ...e, type: 'x' }),
  '{ ...event } (no key after it)': (e) => ({ ...e }),
};

let sink: unknown = null;
const samples: Record<string, number[]> = {};
for (let round = -1; round < ROUNDS; round++) {
  for (const [name, build] of Object.entries(ways)) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) sink = build(events[i & 3]!, i);
    const ns = Number(process.hrtime.bigint() - started) / CALLS;
    if (round >= 0) (samples[name] ??= []).push(ns);
  }
}
if (sink === null) throw new Error('nothing built');
process.stdout.write(`Node ${process.version}, median of ${ROUNDS} rounds of ${CALLS.toLocaleString('en')} calls\n`);
for (const [name, ns] of Object.entries(samples)) process.stdout.write(`${name.padEnd(38)} ${median(ns).toFixed(0).padStart(6)} ns\n`);
