import { z } from 'zod';
import { END, StateGraph, type WorkflowRun } from '../../src/index.js';
import type { ImplementationFactory } from './Implementation.js';

const state = { count: z.number().int().nonnegative() };

function countOf(run: WorkflowRun): number {
  if (run.status !== 'completed') throw new Error(`switchboard (typed) run ended ${run.status}: ${run.error?.message ?? ''}`);
  return run.state.get('count') as number;
}

/**
 * Switchboard with a declared state: the same graphs as `switchboard.ts`, but `count` is a zod
 * schema, so every `ctx.put` is checked against it (and `ctx.get` / `ctx.put` are typed).
 */
export const switchboardTyped: ImplementationFactory = ({ loopSteps, chainLength }) => {
  const loopGraph = new StateGraph({ name: 'loop', maxSteps: loopSteps, state })
    .addNode('a', (ctx) => (ctx.put('count', (ctx.get('count') ?? 0) + 1), null))
    .addNode('b', (ctx) => (ctx.put('count', (ctx.get('count') ?? 0) + 1), null))
    .start('a')
    .addConditionalEdges('a', (ctx) => ((ctx.get('count') ?? 0) >= loopSteps ? END : 'b'))
    .addConditionalEdges('b', (ctx) => ((ctx.get('count') ?? 0) >= loopSteps ? END : 'a'));

  // Built statement by statement (ids as strings), like the untyped chain.
  const chainGraph = new StateGraph({ name: 'chain', maxSteps: chainLength, state });
  chainGraph.start('n1');
  for (let i = 1; i <= chainLength; i++) {
    chainGraph.addNode(`n${i}`, (ctx) => (ctx.put('count', (ctx.get('count') ?? 0) + 1), null));
    chainGraph.addEdge(`n${i}`, i < chainLength ? `n${i + 1}` : END);
  }

  return {
    name: 'Switchboard, typed state',
    loop: async () => countOf(await loopGraph.run('go')),
    chain: async () => countOf(await chainGraph.run('go')),
  };
};
