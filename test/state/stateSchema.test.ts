import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GraphDefinitionError, SqliteRunStore, StateGraph, StateValidationError, humanNode, withReducer, type RunOptions, type WorkflowContext } from '../../src/index.js';

const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-state-')), 'runs.db') });
afterAll(() => store.close());

/** Every check runs the same in memory and in a stored run. */
const modes: Array<[string, RunOptions]> = [
  ['in memory', {}],
  ['stored', { store }],
];

/** A one-node graph whose node writes `value` under `key` with put. */
const writing = (key: string, value: () => unknown) =>
  new StateGraph({ name: 'writes' }).addNode('writer', (ctx) => {
    ctx.put(key, value());
    return 'written';
  }).start('writer');

class Money {
  constructor(readonly cents: number) {}
}

const cyclic = () => {
  const a: Record<string, unknown> = { name: 'a' };
  a.self = a;
  return a;
};

const notJson: Array<[string, () => unknown, RegExp]> = [
  ['a Date', () => new Date(0), /holds a Date/],
  ['a Map', () => new Map([['k', 1]]), /holds a Map/],
  ['a Set', () => new Set([1]), /holds a Set/],
  ['a BigInt', () => 10n, /holds a bigint/],
  ['a function', () => () => 1, /holds a function/],
  ['a symbol', () => Symbol('s'), /holds a symbol/],
  ['undefined in an array', () => [1, undefined, 3], /undefined in an array .*at value\[1\]/],
  ['a hole in an array', () => [1, , 3], /a hole in an array .*at value\[1\]/],
  ['NaN', () => ({ score: Number.NaN }), /holds NaN at value\.score/],
  ['Infinity', () => [Infinity], /holds Infinity/],
  ['a cycle', cyclic, /a cycle\) at value\.self/],
  ['a class instance', () => ({ price: new Money(599) }), /holds a Money at value\.price/],
  ['a nested Date', () => ({ order: { placed: new Date(0) } }), /holds a Date at value\.order\.placed/],
];

describe('state writes are checked where they happen', () => {
  for (const [mode, options] of modes) {
    describe(mode, () => {
      it.each(notJson)('refuses %s at put (state_not_json, naming key and node)', async (_what, value, detail) => {
        const run = await writing('value', value).run('go', options);
        expect(run.status).toBe('failed');
        expect(run.error).toBeInstanceOf(StateValidationError);
        expect(run.error).toMatchObject({ code: 'state_not_json', key: 'value', nodeId: 'writer' });
        expect(run.error!.message).toMatch(/state key "value" \(written by node "writer"\)/);
        expect(run.error!.message).toMatch(detail);
        expect(run.state.has('value')).toBe(false);
      });

      it('refuses a value failing its key’s schema (state_invalid) and an undeclared key (state_undeclared)', async () => {
        const typed = (write: (ctx: WorkflowContext) => void) =>
          new StateGraph({ name: 'typed', state: { score: z.number().int(), draft: z.string() } })
            .addNode('review', (ctx) => {
              write(ctx as unknown as WorkflowContext);
              return null;
            })
            .start('review');
        const wrongType = await typed((ctx) => ctx.put('score', 'high')).run('x', options);
        expect(wrongType.status).toBe('failed');
        expect(wrongType.error).toMatchObject({ name: 'StateValidationError', code: 'state_invalid', key: 'score', nodeId: 'review' });
        expect(wrongType.error!.message).toMatch(/does not match its schema: .*expected number/);
        const typo = await typed((ctx) => ctx.put('drfat', 'text')).run('x', options);
        expect(typo.error).toMatchObject({ code: 'state_undeclared', key: 'drfat' });
        expect(typo.error!.message).toContain('declared: "score", "draft"');
        // Writing through the Map is checked the same way.
        const viaMap = await typed((ctx) => ctx.state.set('score', 1.5)).run('x', options);
        expect(viaMap.error).toMatchObject({ code: 'state_invalid', key: 'score' });
      });

      it('refuses a schema whose output is not JSON (a z.date())', async () => {
        const graph = new StateGraph({ name: 'dated', state: { at: z.coerce.date() } }).addNode('stamp', (ctx) => {
          ctx.put('at', new Date(0));
          return null;
        }).start('stamp');
        expect((await graph.run('x', options)).error).toMatchObject({ code: 'state_not_json', key: 'at' });
      });

      it('checks the initial state before anything runs or is stored', async () => {
        const graph = new StateGraph({ name: 'seeded', state: { score: z.number() } }).addNode('a', () => null).start('a');
        await expect(graph.run('x', { ...options, state: { score: 'x' } })).rejects.toMatchObject({ code: 'state_invalid', key: 'score', nodeId: null });
        await expect(writing('v', () => 1).run('x', { ...options, state: { at: new Date(0) } })).rejects.toMatchObject({ code: 'state_not_json', key: 'at' });
        const ok = await graph.run('x', { ...options, state: { score: 3 } });
        expect(ok.state.get('score')).toBe(3);
      });
    });
  }

  it('applies reducers: replace by default, append concatenates, a function combines', async () => {
    const graph = new StateGraph({
      name: 'reducers',
      state: {
        draft: z.string(),
        notes: withReducer(z.array(z.string()), 'append'),
        tokens: withReducer(z.number(), (total, used: number) => (total ?? 0) + used),
      },
    })
      .addNode('a', (ctx) => {
        ctx.put('draft', 'one');
        ctx.put('notes', ['first']);
        ctx.put('tokens', 10);
        return null;
      })
      .addNode('b', (ctx) => {
        ctx.put('draft', 'two');
        ctx.put('notes', ['second', 'third']);
        ctx.put('tokens', 5);
        return null;
      })
      .start('a')
      .addEdge('a', 'b');
    for (const [, options] of modes) {
      const run = await graph.run('x', options);
      expect(run.status).toBe('completed');
      expect(Object.fromEntries(['draft', 'notes', 'tokens'].map((k) => [k, run.state.get(k)]))).toEqual({ draft: 'two', notes: ['first', 'second', 'third'], tokens: 15 });
    }
  });

  it('refuses an append that is not an array, an appended item failing the schema, and a reducer that throws', async () => {
    const graph = (write: (ctx: WorkflowContext) => void) =>
      new StateGraph({ name: 'bad-reduce', state: { notes: withReducer(z.array(z.string()), 'append'), n: withReducer(z.number(), (): number => { throw new Error('no'); }) } })
        .addNode('w', (ctx) => {
          write(ctx as unknown as WorkflowContext);
          return null;
        })
        .start('w');
    expect((await graph((ctx) => ctx.put('notes', 'single')).run('x')).error?.message).toMatch(/appends: put an array .* received a string/);
    expect((await graph((ctx) => ctx.put('notes', [1])).run('x')).error).toMatchObject({ code: 'state_invalid', key: 'notes' });
    expect((await graph((ctx) => ctx.put('n', 1)).run('x')).error?.message).toMatch(/its reducer threw: no/);
  });

  it('stores frozen copies: the writer’s object stays its own, a read value cannot be changed in place', async () => {
    const mine = { items: ['a'] };
    let mutation: unknown = null;
    const graph = new StateGraph({ name: 'frozen' })
      .addNode('w', (ctx) => {
        ctx.put('box', mine);
        mine.items.push('b');
        return null;
      })
      .addNode('r', (ctx) => {
        try {
          ctx.get<{ items: string[] }>('box')!.items.push('c');
        } catch (error) {
          mutation = error;
        }
        return null;
      })
      .start('w')
      .addEdge('w', 'r');
    const run = await graph.run('x');
    expect(run.state.get('box')).toEqual({ items: ['a'] });
    expect(mine.items).toEqual(['a', 'b']);
    expect(mutation).toBeInstanceOf(TypeError);
  });

  it('keeps undefined object properties out (as JSON does), so memory and a stored run agree', async () => {
    const run = await writing('v', () => ({ a: 1, b: undefined })).run('x', { store });
    expect(run.state.get('v')).toEqual({ a: 1 });
    expect(Object.keys(run.state.get('v') as object)).toEqual(['a']);
  });

  it('refuses at build time a typed graph whose human node writes an undeclared key', () => {
    const graph = new StateGraph({ name: 'ask', state: { draft: z.string() } }).addNode('ask', humanNode()).start('ask');
    expect(() => graph.toMachine()).toThrow(GraphDefinitionError);
    expect(() => graph.toMachine()).toThrow(/human node "ask" writes its reply to state key "humanReply", which graph "ask" does not declare/);
    const declared = new StateGraph({ name: 'ask2', state: { humanReply: z.string() } }).addNode('ask', humanNode()).start('ask');
    expect(() => declared.toMachine()).not.toThrow();
  });

  it('refuses a malformed state declaration', () => {
    expect(() => new StateGraph({ state: { x: 'string' as never } })).toThrow(/state key "x" must be a zod schema/);
    expect(() => new StateGraph({ state: { x: { schema: z.string(), reducer: 'merge' } as never } })).toThrow(/reducer "merge"/);
  });
});
