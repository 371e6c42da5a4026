import { describe, expect, it } from 'vitest';
import { EncodedEvent, type StoredEnvelope } from '../../src/persistence/EncodedEvent.js';
import { encodeEventLog } from '../../src/persistence/eventLog.js';
import { readEventRows } from '../../src/persistence/eventRows.js';
import { StoreError } from '../../src/persistence/StoreError.js';

const RUN = 'items-run';
const envelope = (seq: number, at: number, spanId: string, nodeId: string | null): StoredEnvelope => ({
  runId: RUN,
  seq,
  at,
  traceId: 't'.repeat(32),
  spanId,
  parentSpanId: 'p'.repeat(16),
  path: 'root',
  nodeId,
});

/** A step's three events, each as its body object and as its item. */
const STEP = [
  { body: { type: 'node.started', nodeId: 'a', step: 1, request: { input: 'go' } }, item: '[1,"a",1,{"input":"go"}]', env: envelope(2, 1000, '1'.repeat(16), 'a') },
  {
    body: { type: 'node.completed', nodeId: 'a', step: 1, result: null, durationMs: 0, delta: { set: { count: 1 }, deleted: [] } },
    item: '[2,"a",1,null,0,{"set":{"count":1},"deleted":[]}]',
    env: envelope(3, 1001, '1'.repeat(16), 'a'),
  },
  { body: { type: 'edge.traversed', from: 'a', to: 'b', kind: 'transition', index: 0 }, item: '[3,"a","b","transition",0]', env: envelope(4, 1001, '1'.repeat(16), 'a') },
  { body: { type: 'note', text: 'a node event stays an object' }, item: null, env: envelope(5, 1002, '2'.repeat(16), 'b') },
];

const row = (data: string) => [{ run_id: RUN, seq: 5, type: 'events', at: 1002, data }];

function read(data: string) {
  return readEventRows(row(data), 0, 100);
}

describe('step events stored as items (event log format 3)', () => {
  const asObjects = STEP.map((s) => new EncodedEvent(RUN, s.body.type, JSON.stringify(s.body), s.env));
  const asItems = STEP.map((s) => (s.item === null ? new EncodedEvent(RUN, s.body.type, JSON.stringify(s.body), s.env) : new EncodedEvent(RUN, s.body.type, s.item, s.env, true)));

  it('read back as the same events, fields in order, as the format-2 row written before them', () => {
    const before = encodeEventLog(RUN, asObjects);
    const now = encodeEventLog(RUN, asItems);
    expect(before.startsWith('[2,')).toBe(true);
    expect(now.startsWith('[3,')).toBe(true);
    expect(now.length).toBeLessThan(before.length * 0.75);
    const fromBefore = read(before);
    const fromNow = read(now);
    expect(fromNow.map((e) => JSON.stringify(e.data))).toEqual(fromBefore.map((e) => JSON.stringify(e.data)));
    expect(fromNow.map((e) => e.data)).toEqual(STEP.map((s) => ({ ...s.body, ...s.env })));
    // An encoded event's own data (what a store that keeps objects reads) is the same event.
    expect(asItems.map((e) => JSON.stringify(e.data))).toEqual(fromBefore.map((e) => JSON.stringify(e.data)));
    // Reading from the middle of a row.
    expect(readEventRows(row(now), 3, 100).map((e) => e.seq)).toEqual([4, 5]);
  });

  it('refuses an item with an unknown code, the wrong number of values, or in a format-2 row', () => {
    const head = '{"s":2,"a":1,"t":"tt","i":"ii","p":null,"h":"root","n":"a"}';
    for (const data of [`[3,[${head},[9,"a",1]]]`, `[3,[${head},[1,"a",1]]]`, `[3,[${head},[1,"a",1,{},5]]]`, `[2,[${head},[1,"a",1,{"input":"go"}]]]`, `[3,[${head},{"type":"x"}],[0]]`]) {
      let error: unknown;
      try {
        read(data);
      } catch (caught) {
        error = caught;
      }
      expect(error, data).toBeInstanceOf(StoreError);
      expect((error as StoreError).code, data).toBe('store_corrupt');
    }
  });
});
