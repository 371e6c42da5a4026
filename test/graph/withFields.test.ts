import { describe, expect, it } from 'vitest';
import { Agent, AgentNode, StateGraph, type WorkflowEvent } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { withFields } from '../../src/graph/withFields.js';

/** What withFields stands in for. */
const spread = (base: object, extra: object): object => ({ ...base, ...extra });

/** Same keys in the same order, same values, same prototype, same JSON. */
function expectSameAsSpread(base: object, extra: object): void {
  const want = spread(base, extra);
  const got = withFields(base, extra);
  expect(Object.keys(got)).toEqual(Object.keys(want));
  expect(got).toStrictEqual(want);
  expect(Object.getPrototypeOf(got)).toBe(Object.getPrototypeOf(want));
  expect(JSON.stringify(got)).toBe(JSON.stringify(want));
}

describe('withFields: { ...base, ...extra } without a spread', () => {
  it('keeps the order and values of a spread: disjoint keys, shared keys, undefined values, integer-like keys', () => {
    expectSameAsSpread({ type: 'node.completed', nodeId: 'a', result: 1 }, { runId: 'r', seq: 3, nodeId: 'b' });
    expectSameAsSpread({}, { a: 1 });
    expectSameAsSpread({ a: 1 }, {});
    expectSameAsSpread({ a: undefined, b: null }, { c: undefined });
    // Integer-like keys come first, ascending, in both.
    expectSameAsSpread({ z: 1, 10: 'ten', 2: 'two' }, { 1: 'one', a: 2, 10: 'TEN' });
  });

  it('takes own enumerable keys only: no inherited or hidden keys, getters read once as values', () => {
    const proto = { inherited: true };
    const base = Object.create(proto) as Record<string, unknown>;
    base['own'] = 1;
    Object.defineProperty(base, 'hidden', { value: 2, enumerable: false });
    let reads = 0;
    Object.defineProperty(base, 'computed', { get: () => ++reads, enumerable: true });
    const got = withFields(base, { extra: 3 }) as Record<string, unknown>;
    expect(Object.keys(got)).toEqual(['own', 'computed', 'extra']);
    expect(got['computed']).toBe(1);
    expect(Object.getOwnPropertyDescriptor(got, 'computed')).toMatchObject({ value: 1, writable: true, enumerable: true });
    expect(reads).toBe(1);
    expect('inherited' in got).toBe(false);
  });

  it('keeps an own __proto__ key a plain key, in base or in extra (the prototype is not changed)', () => {
    const base = JSON.parse('{"type":"x","__proto__":{"polluted":true}}') as object;
    const extra = JSON.parse('{"__proto__":{"other":1},"nodeId":"n"}') as object;
    expectSameAsSpread(base, extra);
    const got = withFields(base, extra) as Record<string, unknown>;
    expect(Object.hasOwn(got, '__proto__')).toBe(true);
    expect((got as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('equals the spread on 500 random pairs of objects drawn from a small key pool', () => {
    const pool = ['type', 'nodeId', 'runId', 'seq', '0', '7', '__proto__', 'constructor', 'toString', 'a'];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const random = (): object => {
      const text = `{${Array.from({ length: rand(6) }, () => `"${pool[rand(pool.length)]}":${rand(100)}`).join(',')}}`;
      return JSON.parse(text) as object;
    };
    for (let i = 0; i < 500; i++) expectSameAsSpread(random(), random());
  });

  it('copies own enumerable symbol keys, as a spread does, with or without a __proto__ key', () => {
    const tag = Symbol('tag');
    const hidden = Symbol('hidden');
    const base = { a: 1, [tag]: 'base' } as Record<PropertyKey, unknown>;
    Object.defineProperty(base, hidden, { value: 1, enumerable: false });
    for (const extra of [{ b: 2 }, JSON.parse('{"__proto__":1,"b":2}') as object]) {
      const got = withFields(base, extra) as Record<PropertyKey, unknown>;
      const want = spread(base, extra) as Record<PropertyKey, unknown>;
      expect(Reflect.ownKeys(got)).toEqual(Reflect.ownKeys(want));
      expect(got[tag]).toBe('base');
      expect(hidden in got).toBe(false);
    }
  });

  it('leaves both objects as they were', () => {
    const base = { a: 1 };
    const extra = { b: 2 };
    const got = withFields(base, extra);
    expect(got).not.toBe(base);
    expect(base).toStrictEqual({ a: 1 });
    expect(extra).toStrictEqual({ b: 2 });
  });
});

describe('stamped events keep the field order they had', () => {
  it('a streamed agent node: model.delta is its fields, agent, node id, then the envelope; node.completed keeps nodeId in its place', async () => {
    const agent = new Agent({ name: 'writer', instructions: 'Write.', model: new ScriptedModel([{ text: 'one two three' }]) });
    const graph = new StateGraph({ name: 'stamped' }).addNode('write', new AgentNode(agent)).start('write');
    const events: WorkflowEvent[] = [];
    for await (const event of graph.stream('go')) events.push(event);
    const deltas = events.filter((e) => e.type === 'model.delta');
    expect(deltas.map((e) => (e as unknown as { text: string }).text).join('')).toBe('one two three');
    for (const delta of deltas) {
      expect(Object.keys(delta)).toEqual(['type', 'model', 'iteration', 'text', 'agent', 'nodeId', 'runId', 'seq', 'at', 'traceId', 'spanId', 'parentSpanId', 'path']);
      expect(delta).toMatchObject({ agent: 'writer', nodeId: 'write', path: 'root' });
    }
    const completed = events.find((e) => e.type === 'node.completed')!;
    expect(Object.keys(completed).slice(0, 2)).toEqual(['type', 'nodeId']);
    expect(Object.keys(completed).slice(-7)).toEqual(['runId', 'seq', 'at', 'traceId', 'spanId', 'parentSpanId', 'path']);
    // Every event: the run's id, seq in order, and no key twice.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => events[0]!.seq + i));
    for (const event of events) expect(new Set(Object.keys(event)).size).toBe(Object.keys(event).length);
  });
});
