import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import type { ImplementationFactory } from './Implementation.js';

const CounterState = Annotation.Root({ count: Annotation<number>() });
type Counter = typeof CounterState.State;

const increment = (state: Counter) => ({ count: state.count + 1 });

/**
 * LangGraph.js 1.7.3: the same graphs as a `StateGraph` over an annotated state, compiled once,
 * run with `invoke()` and no checkpointer (its fastest configuration). `recursionLimit` counts
 * node runs and defaults to 25, so it is raised to fit the loop.
 */
export const langGraph: ImplementationFactory = ({ loopSteps, chainLength }) => {
  const done = (state: Counter) => state.count >= loopSteps;
  const loopGraph = new StateGraph(CounterState)
    .addNode('a', increment)
    .addNode('b', increment)
    .addEdge(START, 'a')
    .addConditionalEdges('a', (state) => (done(state) ? END : 'b'))
    .addConditionalEdges('b', (state) => (done(state) ? END : 'a'))
    .compile();

  // Node names are built in a loop, so the builder is typed with `string` node names.
  const chainBuilder = new StateGraph<typeof CounterState, Counter, typeof CounterState.Update, string>(CounterState);
  for (let i = 1; i <= chainLength; i++) chainBuilder.addNode(`n${i}`, increment);
  chainBuilder.addEdge(START, 'n1');
  for (let i = 1; i <= chainLength; i++) chainBuilder.addEdge(`n${i}`, i < chainLength ? `n${i + 1}` : END);
  const chainGraph = chainBuilder.compile();

  const loopConfig = { recursionLimit: loopSteps + 10 };
  return {
    name: 'LangGraph.js',
    loop: async () => (await loopGraph.invoke({ count: 0 }, loopConfig)).count,
    chain: async () => (await chainGraph.invoke({ count: 0 })).count,
  };
};
