/**
 * The seven mistakes a new user made building research → write → review, each caught by `tsc`
 * (the `@ts-expect-error` lines: `npm run typecheck` fails if one of them compiles) and, where a
 * mistake can happen at run time at all, by a typed error at the first write or at build time — in
 * memory and in a stored run alike.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createActor } from 'xstate';
import { z } from 'zod';
import { END, GraphDefinitionError, SqliteRunStore, StateGraph, StateValidationError, type AgentResult, type NodeContext, type NodeFunction, type RunOptions } from '../../src/index.js';

const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-mistakes-')), 'runs.db') });
afterAll(() => store.close());
const modes: Array<[string, RunOptions]> = [
  ['in memory', {}],
  ['stored', { store }],
];

const state = { topic: z.string(), notes: z.array(z.string()), draft: z.string(), score: z.number(), dueAt: z.string() };

/** The graph as it should be: research → write → review, review loops back to write or ends. */
function researchGraph(write: NodeFunction<NodeContext<typeof state, 'research' | 'write'>> = (ctx) => (ctx.put('draft', `draft on ${ctx.get('topic') ?? '?'}`), null)) {
  return new StateGraph({ name: 'research', state })
    .addNode('research', (ctx, request) => {
      ctx.put('topic', String(request.input));
      ctx.put('notes', ['a source']);
      return null;
    })
    .addNode('write', write)
    .addNode('review', (ctx) => {
      ctx.put('score', (ctx.get('draft') ?? '').length);
      return null;
    })
    .start('research')
    .addEdge('research', 'write')
    .addEdge('write', 'review')
    .addConditionalEdges('review', (ctx) => ((ctx.get('score') ?? 0) > 5 ? 'accept' : 'revise'), { accept: END, revise: 'write' });
}

describe('the seven mistakes', () => {
  it('compiles and runs the graph without them, typed throughout', async () => {
    const graph = researchGraph();
    const run = await graph.run('tides');
    expect(run).toMatchObject({ status: 'completed', path: ['research', 'write', 'review'] });
    expect(run.state.get('draft')).toBe('draft on tides');
    graph.addNode('check', (ctx) => {
      expectTypeOf(ctx.get('score')).toEqualTypeOf<number | undefined>();
      expectTypeOf(ctx.get('notes')).toEqualTypeOf<string[] | undefined>();
      expectTypeOf(ctx.get('lastResult')).toEqualTypeOf<AgentResult | null | undefined>();
      expectTypeOf(ctx.get('lastNodeId')).toEqualTypeOf<'research' | 'write' | 'review' | 'check' | undefined>();
      return null;
    });
    // The machine's state values are the node ids.
    const snapshot = createActor(graph.toMachine(), { input: { request: 'x' } }).getSnapshot();
    expect(snapshot.matches('research')).toBe(true);
    // @ts-expect-error 'reserch' is not a node id
    expect(snapshot.matches('reserch')).toBe(false);
  });

  for (const [mode, options] of modes) {
    describe(mode, () => {
      it('1. a value of the wrong type for its key: tsc, then state_invalid at the put', async () => {
        const graph = researchGraph((ctx) => {
          // @ts-expect-error score is a number
          ctx.put('score', 'high');
          return null;
        });
        const run = await graph.run('tides', options);
        expect(run.status).toBe('failed');
        expect(run.error).toBeInstanceOf(StateValidationError);
        expect(run.error).toMatchObject({ code: 'state_invalid', key: 'score', nodeId: 'write' });
      });

      it('2. a wrong node id in addEdge: tsc, then GraphDefinitionError when built untyped', async () => {
        // @ts-expect-error 'wirte' is not a node id
        researchGraph().addEdge('research', 'wirte');
        const untyped = new StateGraph<null, string>().addNode('research', () => null).addNode('write', () => null).start('research').addEdge('research', 'wirte');
        await expect(untyped.run('x', options)).rejects.toThrow(GraphDefinitionError);
        await expect(untyped.run('x', options)).rejects.toThrow(/node not found: wirte/);
      });

      it('3. a typo in a route map: tsc (target and key), then GraphDefinitionError when built untyped', async () => {
        const base = () => new StateGraph().addNode('review', () => null).addNode('write', () => null).start('review');
        // @ts-expect-error 'wirte' is not a node id
        base().addConditionalEdges('review', () => (Math.random() > 0.5 ? 'accept' : 'revise'), { accept: END, revise: 'wirte' });
        // @ts-expect-error 'acept' is not an answer of the router ('accept' is missing)
        base().addConditionalEdges('review', () => (Math.random() > 0.5 ? 'accept' : 'revise'), { acept: END, revise: 'write' });
        const untyped = new StateGraph<null, string>().addNode('review', () => null).start('review').addConditionalEdges('review', () => 'revise', { revise: 'wirte' });
        await expect(untyped.run('x', options)).rejects.toThrow(/route map key "revise" points to unknown node "wirte"/);
      });

      it('4. a typo in a state key: tsc, then state_undeclared at the put', async () => {
        const graph = researchGraph((ctx) => {
          // @ts-expect-error 'drfat' is not a declared key
          ctx.put('drfat', 'text');
          return null;
        });
        const run = await graph.run('tides', options);
        expect(run.error).toMatchObject({ name: 'StateValidationError', code: 'state_undeclared', key: 'drfat', nodeId: 'write' });
      });

      it('5. a Date put into state: tsc, then refused at the put — typed (state_invalid) and untyped (state_not_json)', async () => {
        const typed = researchGraph((ctx) => {
          // @ts-expect-error dueAt is a string
          ctx.put('dueAt', new Date(0));
          return null;
        });
        expect((await typed.run('x', options)).error).toMatchObject({ code: 'state_invalid', key: 'dueAt', nodeId: 'write' });
        const untyped = new StateGraph({ name: 'untyped-date' }).addNode('write', (ctx) => (ctx.put('dueAt', new Date(0)), null)).start('write');
        const run = await untyped.run('x', options);
        expect(run.status).toBe('failed');
        expect(run.error).toMatchObject({ code: 'state_not_json', key: 'dueAt', nodeId: 'write' });
      });

      it('6. a wrong start node: tsc, then GraphDefinitionError when built untyped', async () => {
        // @ts-expect-error 'reserch' is not a node id
        new StateGraph().addNode('research', () => null).start('reserch');
        const untyped = new StateGraph<null, string>().addNode('research', () => null).start('reserch');
        await expect(untyped.run('x', options)).rejects.toThrow(/start node not found: reserch/);
      });

      it('7. a router answering a node that does not exist: tsc, then node_not_found when it answers', async () => {
        const base = () => new StateGraph().addNode('review', () => null).addNode('write', () => null).start('review');
        // @ts-expect-error 'publish' is not a node id
        base().addConditionalEdges('review', () => 'publish');
        const untyped = new StateGraph<null, string>().addNode('review', () => null).start('review').addConditionalEdges('review', () => 'publish');
        const run = await untyped.run('x', options);
        expect(run.status).toBe('failed');
        expect(run.error).toMatchObject({ code: 'node_not_found' });
      });
    });
  }

  it('reading a key as the wrong type does not compile (a read cannot fail at run time)', () => {
    researchGraph().addNode('reader', (ctx) => {
      // @ts-expect-error draft is a string (or undefined), not a number
      const length: number = ctx.get('draft');
      // @ts-expect-error 'drafts' is not a declared key
      ctx.get('drafts');
      return String(length);
    });
  });
});
