import type { StateGraph, WorkflowContext } from '../src/index.js';

/** What {@link twoNodeLoop} needs of the library: the sources, or a build imported at run time. */
export type LoopLibrary = Pick<typeof import('../src/index.js'), 'END' | 'StateGraph'>;

/**
 * The benchmarks' 2-node loop (a → b → a …, each node adding one to `count`, both routers ending
 * the run when it reaches `steps`), built on `lib`: the sources, or a build of the package.
 */
export function twoNodeLoop(lib: LoopLibrary, steps: number): StateGraph {
  const { END, StateGraph } = lib;
  const increment = (ctx: WorkflowContext): null => {
    ctx.put('count', (ctx.get<number>('count') ?? 0) + 1);
    return null;
  };
  const done = (ctx: WorkflowContext) => (ctx.get<number>('count') ?? 0) >= steps;
  return new StateGraph({ name: 'loop', maxSteps: steps }).addNode('a', increment).addNode('b', increment).start('a')
    .addConditionalEdges('a', (ctx) => (done(ctx) ? END : 'b'))
    .addConditionalEdges('b', (ctx) => (done(ctx) ? END : 'a'));
}
