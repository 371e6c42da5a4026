import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRecorder, StateGraph } from '../../../src/index.js';
import { memoryTarget, sqliteTarget } from '../../persistence/storeTargets.js';

const SECRET = 'sv-stored-event-secret-0123456789';
const IMAGE = `data:image/png;base64,${'iVBORw0KGgoAAAANSUhEUg'.repeat(20)}`;
const LONG = `long ${'z'.repeat(3000)}`;

afterEach(() => {
  delete process.env.STORED_EVENT_TEST_API_KEY;
});

/** Results (JSON, as a stored snapshot holds them) that need every kind of redaction, one per step, and plain ones between them. */
const RESULTS: Array<() => unknown> = [
  () => ({ outputText: 'plain', rawResponse: { id: 'r1', items: [1, 2, { ok: true }], nothing: null } }),
  () => ({ outputText: `key ${SECRET} inside`, rawResponse: { apiKey: 'sk-abcdefghijklmnopqrstuvwxyz', nested: { authorization: 'Bearer abcdefghijkl' } } }),
  () => ({ outputText: 'image', rawResponse: { picture: IMAGE, __raw: { hidden: 1 }, list: [IMAGE] } }),
  () => ({ outputText: 'keys', rawResponse: { password: 'hunter2hunter2', cookie: null, headers: { 'x-api-key': 'abcdefgh12345678' }, text: `api_key=${'k'.repeat(12)}` } }),
  () => ({ outputText: LONG, rawResponse: { again: LONG, big: { text: LONG } } }),
  () => ({ outputText: 'blob', rawResponse: { blob: 'QUJD'.repeat(100), buffer: { type: 'Buffer', data: [1, 2, 3] } } }),
  () => ({ outputText: 'plain again', rawResponse: { deep: { a: { b: { c: { d: [null, 'x'] } } } } } }),
  // JSON.stringify calls a toJSON wherever it is; what it gives is redacted, not the keys around it.
  () => ({ outputText: 'hidden toJSON', rawResponse: hiddenToJSON({ id: 'r2' }, () => ({ apiKey: 'abcdefghijkl', note: `n ${SECRET}` })) }),
  () => ({ outputText: 'list toJSON', rawResponse: { list: Object.assign(['ok'], { toJSON: () => `l ${SECRET}` }), tagged: TaggedList.from(['a']) } }),
  // A secret in a key; a String object passed off as a plain object (JSON writes its toString);
  // an Array subclass whose species would build the redacted copy.
  () => ({ outputText: 'odd', rawResponse: { [`k ${SECRET}`]: 1, [`Bearer ${'b'.repeat(12)}`]: 2, note: disguisedString(`s ${SECRET}`), list: SpeciesList.from([{ apiKey: 'abcdefghijkl' }]) } }),
];

/** A String object with Object.prototype and a hidden toString: its keys are '0' and '1'. */
function disguisedString(text: string): object {
  const boxed = Object.setPrototypeOf(new String('ok'), Object.prototype) as object;
  return Object.defineProperty(boxed, 'toString', { value: () => text, enumerable: false });
}

/** An array subclass whose `map` builds an array with a toJSON giving the secret. */
class SpeciesList extends Array<unknown> {
  static override get [Symbol.species](): ArrayConstructor {
    return function (this: unknown, n: number) {
      return Object.defineProperty(new Array(n), 'toJSON', { value: () => `species ${SECRET}` });
    } as unknown as ArrayConstructor;
  }
}

/** `value` with a toJSON that is not enumerable (a for-in walk does not see it). */
function hiddenToJSON<T extends object>(value: T, toJSON: () => unknown): T {
  return Object.defineProperty(value, 'toJSON', { value: toJSON, enumerable: false });
}

/** An array subclass whose prototype has a toJSON. */
class TaggedList extends Array<unknown> {
  toJSON(): unknown {
    return { list: [...this], note: `t ${SECRET}` };
  }
}

/** Events with what differs between two runs of one graph (ids, times, durations) blanked. */
function normalized(events: unknown[], runId: string): unknown {
  const varying = new Set(['runId', 'traceId', 'spanId', 'parentSpanId', 'at', 'durationMs', 'startedAt', 'finishedAt', 'updatedAt']);
  return JSON.parse(JSON.stringify(events).replaceAll(runId, '<run>'), (key, value: unknown) => (varying.has(key) ? '<varies>' : value));
}

describe('the events a stored run keeps', () => {
  for (const make of [sqliteTarget, memoryTarget]) {
    it(`are redacted exactly as a recorder of the run gets them (${make.name})`, async () => {
      process.env.STORED_EVENT_TEST_API_KEY = SECRET;
      const target = make();
      try {
        let graph = new StateGraph({ name: 'redacted-events', maxSteps: RESULTS.length });
        RESULTS.forEach((result, i) => {
          graph = graph.addNode(`n${i}`, () => result() as never);
          if (i > 0) graph = graph.addEdge(`n${i - 1}`, `n${i}`);
        });
        graph = graph.start('n0');
        const recorder = new MemoryRecorder();
        const run = await graph.run('go', { store: target.store, recorders: [recorder] });
        expect(run.status, JSON.stringify(run.error)).toBe('completed');
        const stored = await target.store.listEvents(run.runId);
        expect(stored.map((e) => e.seq)).toEqual(recorder.events.map((e) => e.seq));
        expect(stored.map((e) => e.data)).toEqual(JSON.parse(JSON.stringify(recorder.events)));
        const text = JSON.stringify(stored);
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain('sk-abcdefghijklmnop');
        expect(text).not.toContain(IMAGE.slice(22, 80));
        expect(text).not.toContain('__raw');
        expect(JSON.stringify(await target.store.getRun(run.runId))).not.toContain(SECRET);
        expect(text).not.toContain('Bearer bbbb');
        // A run with no recorder: its log redacts the raw events itself, and keeps the same.
        const alone = await graph.run('go', { store: target.store });
        const aloneStored = await target.store.listEvents(alone.runId);
        expect(normalized(aloneStored.map((e) => e.data), alone.runId)).toEqual(normalized(stored.map((e) => e.data), run.runId));
        expect(JSON.stringify(aloneStored)).not.toContain(SECRET);
      } finally {
        await target.close();
      }
    });

    it(`redact the run's first events, made before its row exists, as every later one (${make.name})`, async () => {
      process.env.STORED_EVENT_TEST_API_KEY = SECRET;
      const target = make();
      try {
        // The input (in run.started and node.started) holds the environment's secret, a key and an image.
        const input = `please use ${SECRET} and sk-abcdefghijklmnopqrstuvwxyz, see ${IMAGE}`;
        const graph = new StateGraph({ name: 'first-events' }).addNode('a', () => ({ outputText: 'done' }) as never).start('a');
        const recorder = new MemoryRecorder();
        const run = await graph.run(input, { store: target.store, recorders: [recorder] });
        const alone = await graph.run(input, { store: target.store });
        for (const id of [run.runId, alone.runId]) {
          const stored = await target.store.listEvents(id);
          expect(stored.slice(0, 2).map((e) => e.type)).toEqual(['run.started', 'node.started']);
          const text = JSON.stringify(stored);
          expect(text).toContain('please use');
          expect(text).not.toContain(SECRET);
          expect(text).not.toContain('sk-abcdefghijklmnop');
          expect(text).not.toContain(IMAGE.slice(22, 80));
          expect(JSON.stringify(await target.store.getRun(id))).not.toContain(SECRET);
        }
        const stored = await target.store.listEvents(run.runId);
        expect(stored.map((e) => e.data)).toEqual(JSON.parse(JSON.stringify(recorder.events)));
        expect(normalized((await target.store.listEvents(alone.runId)).map((e) => e.data), alone.runId)).toEqual(normalized(stored.map((e) => e.data), run.runId));
      } finally {
        await target.close();
      }
    });
  }
});
