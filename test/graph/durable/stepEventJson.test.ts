import { describe, expect, it } from 'vitest';
import { stepEventJson, type QuotedStrings } from '../../../src/graph/durable/stepEventJson.js';
import { expandStepItem } from '../../../src/persistence/stepEventItems.js';
import type { HopEvent } from '../../../src/trace/HopListener.js';
import { REDACTED, redactFields } from '../../../src/trace/redact.js';

const SECRETS = ['sv-step-event-secret-0123', 'with"quote-secret'];
const LIMIT = 64 * 1024;

/** A small deterministic generator (xorshift), so a failure names a seed that reproduces it. */
function generator(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  return { next, pick };
}

/** Strings that need a scrub, strings close to one, strings JSON escapes, and one long enough to be shared. */
const STRINGS = [
  'a',
  'plain text here',
  'task-1',
  'sk-abcdefghijklmnopqrstuvwx',
  'Bearer abcdefghijkl',
  'api_key=kkkkkkkkkkkk',
  'data:image/png;base64,iVBORw0KGgo',
  'QUJD'.repeat(70),
  'line\nbreak',
  'quote " inside',
  'lone \ud800 surrogate',
  'é ✓',
  REDACTED,
  'y'.repeat(300),
  ...SECRETS,
  `x ${SECRETS[0]} y`,
];
const KEYS = ['a', 'text', 'apiKey', 'password', 'tokens', '__raw', 'type', 'data', 'nodeId', 'toJSON', '$switchboard'];

function value(g: ReturnType<typeof generator>, depth: number): unknown {
  const r = g.next();
  if (depth > 3 || r < 0.3) return g.pick(STRINGS);
  if (r < 0.42) return g.pick([0, 1.5, -3, true, false, null, Number.NaN, undefined]);
  if (r < 0.46) return g.pick([new Map([['k', 1]]), new Date(0), new Error('boom'), new Uint8Array([1]), { type: 'Buffer', data: [1, 2] }, () => 1]);
  if (r < 0.5) return withToJSON(g);
  if (r < 0.6) return Array.from({ length: Math.floor(g.next() * 4) }, () => value(g, depth + 1));
  const out: Record<string, unknown> = {};
  const n = Math.floor(g.next() * 4);
  for (let i = 0; i < n; i++) {
    Object.defineProperty(out, g.pick(KEYS), { value: value(g, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** An array subclass whose prototype has a toJSON (JSON.stringify calls it). */
class TaggedList extends Array<unknown> {
  toJSON(): unknown {
    return { list: [...this], apiKey: 'abcdefghijkl' };
  }
}

/**
 * Values whose JSON is what a toJSON gives, not what a walk over their keys sees: a toJSON that is
 * not enumerable, an array's own, an Array subclass's. Some give a secret, some plain JSON.
 */
function withToJSON(g: ReturnType<typeof generator>): unknown {
  const gives = g.pick<unknown>([{ apiKey: 'abcdefghijkl', note: 'n' }, SECRETS[0], 'plain', { ok: [1, 2] }, [`x ${SECRETS[1]}`]]);
  switch (Math.floor(g.next() * 3)) {
    case 0: {
      const hidden = { id: 'r1' };
      Object.defineProperty(hidden, 'toJSON', { value: () => gives, enumerable: false });
      return hidden;
    }
    case 1:
      return Object.assign(['ok'], { toJSON: () => gives });
    default:
      return TaggedList.from(['a', 'b']);
  }
}

function event(g: ReturnType<typeof generator>): Record<string, unknown> {
  const id = () => (g.next() < 0.8 ? g.pick(['a', 'b', 'classify', 'node-with-a-long-name']) : g.pick(STRINGS));
  const num = () => (g.next() < 0.9 ? Math.floor(g.next() * 1000) : g.pick([Number.NaN, Number.POSITIVE_INFINITY, -0, 0.25, '3']));
  switch (Math.floor(g.next() * 4)) {
    case 0:
      return { type: 'node.started', nodeId: id(), step: num(), request: g.next() < 0.7 ? { input: g.pick(STRINGS) } : value(g, 1) };
    case 1:
      return { type: 'node.completed', nodeId: id(), step: num(), result: g.next() < 0.3 ? null : value(g, 1), durationMs: num(), delta: g.next() < 0.5 ? { set: { count: num() }, deleted: [] } : value(g, 1) };
    case 2:
      return { type: 'edge.traversed', from: id(), to: id(), kind: g.pick(['transition', 'conditional', 'end']), index: num() };
    default: {
      // The same types with another shape: a field more, one less, another order.
      const shapes = [
        { type: 'edge.traversed', from: 'a', to: 'b', kind: 'conditional', index: 0, routeKey: 'yes' },
        { type: 'edge.traversed', from: 'a', to: '__end__', kind: 'end' },
        { type: 'node.started', step: 1, nodeId: 'a', request: { input: 'go' } },
        { type: 'node.completed', nodeId: 'a', step: 1, result: null, durationMs: 1, delta: null, extra: 1 },
      ];
      return g.pick(shapes);
    }
  }
}

describe('stepEventJson', () => {
  it('writes a step event as an item that reads back as JSON.stringify gave it, only when a redaction would keep it as it is (random events)', () => {
    const runs = Number(process.env.SWITCHBOARD_FUZZ_RUNS ?? 20_000);
    const strings: QuotedStrings = new Map();
    let fast = 0;
    let plainEvents = 0;
    for (let seed = 1; seed <= runs; seed++) {
      const e = event(generator(seed));
      let json: string | undefined;
      try {
        json = JSON.stringify(e);
      } catch {
        json = undefined;
      }
      const same = json !== undefined && JSON.stringify(redactFields(e, SECRETS, null)) === json;
      if (same && !json!.includes('y'.repeat(300))) plainEvents += 1;
      const text = stepEventJson(e as unknown as HopEvent, SECRETS, LIMIT, strings);
      if (text === null) continue;
      fast += 1;
      expect(same, `seed ${seed}: ${json}`).toBe(true);
      // What a reader gets back is the event, its fields in their order.
      expect(JSON.stringify(expandStepItem(JSON.parse(text) as unknown[])), `seed ${seed}`).toBe(json);
      expect(text.length, `seed ${seed}`).toBeLessThan(json!.length);
    }
    // The shortcut is taken for most events that need nothing (else it saves nothing).
    expect(fast).toBeGreaterThan(plainEvents * 0.5);
  });

  it('takes the general path for a value too large, a long shared string, a getter that throws and another type', () => {
    const strings: QuotedStrings = new Map();
    const huge = { type: 'node.completed', nodeId: 'a', step: 1, result: { text: 'z'.repeat(100) }, durationMs: 1, delta: null };
    expect(stepEventJson(huge as unknown as HopEvent, SECRETS, 50, strings)).toBeNull();
    const shared = { type: 'node.started', nodeId: 'a', step: 1, request: { input: 'y'.repeat(5_000) } };
    expect(stepEventJson(shared as unknown as HopEvent, SECRETS, LIMIT, strings)).toBeNull();
    const request = {};
    Object.defineProperty(request, 'input', { enumerable: true, get: () => { throw new Error('unreadable'); } });
    expect(stepEventJson({ type: 'node.started', nodeId: 'a', step: 1, request } as unknown as HopEvent, SECRETS, LIMIT, strings)).toBeNull();
    expect(stepEventJson({ type: 'run.started', graph: 'g' } as unknown as HopEvent, SECRETS, LIMIT, strings)).toBeNull();
    // A toJSON JSON.stringify would call, wherever it is: not enumerable, an array's own, inherited.
    const hidden = { id: 'r1' };
    Object.defineProperty(hidden, 'toJSON', { value: () => ({ apiKey: 'abcdefghijkl', note: SECRETS[0] }), enumerable: false });
    const lists = [Object.assign(['ok'], { toJSON: () => SECRETS[0] }), TaggedList.from(['a'])];
    for (const request of [hidden, { list: lists[0] }, { list: lists[1] }, lists[0]]) {
      const started = { type: 'node.started', nodeId: 'a', step: 1, request };
      expect(stepEventJson(started as unknown as HopEvent, SECRETS, LIMIT, strings), JSON.stringify(request)).toBeNull();
      expect(JSON.stringify(redactFields(started, SECRETS, null))).not.toMatch(/sv-step-event-secret|abcdefghijkl/);
    }
    const edge = { type: 'edge.traversed', from: 'a', to: 'b', kind: 'transition', index: 0 };
    expect(stepEventJson(edge as unknown as HopEvent, SECRETS, LIMIT, strings)).toBe('[3,"a","b","transition",0]');
    // A node id that is a secret is never quoted from the cache of clean strings.
    const secretEdge = { ...edge, to: SECRETS[0] };
    expect(stepEventJson(secretEdge as unknown as HopEvent, SECRETS, LIMIT, strings)).toBeNull();
    expect(stepEventJson(secretEdge as unknown as HopEvent, SECRETS, LIMIT, strings)).toBeNull();
  });
});
