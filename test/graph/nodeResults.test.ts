import { describe, expect, it } from 'vitest';
import { StateGraph, WorkflowExecutionError, type GraphNode } from '../../src/index.js';
import { sqliteTarget } from '../persistence/storeTargets.js';

/** Results a node may not return, with what the error must name. */
const BAD_RESULTS: Array<[string, unknown, RegExp]> = [
  ['a number outputText', { outputText: 5 }, /outputText 5; outputText must be a string, null or absent/],
  ['an object outputText', { outputText: { text: 'hi' } }, /outputText an object/],
  ['an array outputText', { outputText: ['hi'] }, /outputText an array/],
  ['a boolean outputText', { outputText: false }, /outputText false/],
  ['toolCalls that are not an array', { outputText: 'x', toolCalls: 'lookup' }, /toolCalls "lookup"; toolCalls must be an array/],
  ['usage that is not an object', { usage: 12 }, /usage 12/],
  ['a negative token count', { usage: { inputTokens: -1 } }, /usage.inputTokens -1/],
  ['a NaN token count', { usage: { totalTokens: Number.NaN } }, /usage.totalTokens NaN/],
  ['an Error instead of throwing it', new Error('oops'), /returned an Error \(throw it to fail the node\)/],
  ['a Map', new Map([['outputText', 'x']]), /returned a Map/],
  ['a Date', new Date(0), /returned a Date/],
  ['an array', ['x'], /returned an array/],
  ['a number', 5, /returned a number \(5\)/],
  ['a boolean', true, /returned a boolean \(true\)/],
  ['a bigint', 5n, /returned a bigint \(5n\)/],
  ['a symbol', Symbol('s'), /returned a symbol/],
  ['a function', () => 'x', /returned a function/],
  ['binary data', new Uint8Array([1, 2]), /returned binary data/],
];

const shapes: Array<[string, (value: unknown) => GraphNode]> = [
  ['a sync function', (value) => (() => value) as never],
  ['an async function', (value) => (async () => value) as never],
  ['an AgentNode', (value) => ({ execute: () => value }) as never],
];

describe('node results are checked', () => {
  for (const [what, value, message] of BAD_RESULTS) {
    for (const [shape, make] of shapes) {
      it(`fails the run when ${shape} returns ${what}`, async () => {
        const graph = new StateGraph().addNode('first', () => 'go').addNode('bad', make(value)).addNode('after', (_ctx, req) => `got ${String(req.input)}`);
        graph.start('first').addEdge('first', 'bad').addEdge('bad', 'after');
        const run = await graph.run('x');
        expect(run.status).toBe('failed');
        expect(run.path).toEqual(['first', 'bad']);
        expect(run.error).toBeInstanceOf(WorkflowExecutionError);
        expect(run.error?.code).toBe('invalid_node_result');
        expect(run.error?.message).toContain('node "bad"');
        expect(run.error?.message).toMatch(message);
      });
    }
  }

  it('refuses { outputText: 5 } from executeStream in stream() as well', async () => {
    const graph = new StateGraph().addNode('a', { execute: () => 'fine', executeStream: async () => ({ outputText: 5 }) as never }).start('a');
    const events = [];
    for await (const event of graph.stream('x')) events.push(event);
    const last = events.at(-1) as { type: string; run: { status: string; error: { code: string } } };
    expect(last.run.status).toBe('failed');
    expect(last.run.error.code).toBe('invalid_node_result');
  });

  it('refuses an object outputText in a stored run with the same typed error, and stores the failure', async () => {
    const target = sqliteTarget();
    try {
      const graph = new StateGraph({ name: 'stored-bad-result' }).addNode('a', () => ({ outputText: { a: 1 } }) as never).start('a');
      const run = await graph.run('x', { store: target.store });
      expect(run.status).toBe('failed');
      expect(run.error?.code).toBe('invalid_node_result');
      const record = await target.store.getRun(run.runId);
      expect(record).toMatchObject({ status: 'failed', error: { code: 'invalid_node_result' } });
    } finally {
      await target.close();
    }
  });

  it('accepts results with null or absent fields, extra fields and an empty output text', async () => {
    const results = [{ outputText: null }, {}, { outputText: '', usage: { inputTokens: 0 } }, { outputText: 'x', toolCalls: [], extra: { a: 1 } }, null, undefined, ''];
    for (const result of results) {
      const run = await new StateGraph().addNode('a', () => result as never).start('a').run('in');
      expect(run.status, JSON.stringify(result)).toBe('completed');
    }
  });
});
