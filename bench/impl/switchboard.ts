import { END, StateGraph, type WorkflowContext } from '../../src/index.js';
import { countOf } from './countOf.js';
import type { ImplementationFactory } from './Implementation.js';

function increment(ctx: WorkflowContext): null {
  ctx.put('count', (ctx.get<number>('count') ?? 0) + 1);
  return null;
}


/** Switchboard: `new StateGraph()` with ctx.put/get node bodies, run with `graph.run()`. */
export const switchboard: ImplementationFactory = ({ loopSteps, chainLength }) => {
  const done = (ctx: WorkflowContext) => (ctx.get<number>('count') ?? 0) >= loopSteps;
  const loopGraph = new StateGraph({ name: 'loop', maxSteps: loopSteps })
    .addNode('a', increment)
    .addNode('b', increment)
    .start('a')
    .addConditionalEdges('a', (ctx) => (done(ctx) ? END : 'b'))
    .addConditionalEdges('b', (ctx) => (done(ctx) ? END : 'a'));

  const chainGraph = new StateGraph({ name: 'chain', maxSteps: chainLength }).start('n1');
  for (let i = 1; i <= chainLength; i++) {
    chainGraph.addNode(`n${i}`, increment).addEdge(`n${i}`, i < chainLength ? `n${i + 1}` : END);
  }

  return {
    name: 'Switchboard',
    loop: async () => countOf(await loopGraph.run('go')),
    chain: async () => countOf(await chainGraph.run('go')),
  };
};
