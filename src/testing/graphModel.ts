import { compileModel, specOf, type GraphMachine } from '../graph/compileMachine.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';

/**
 * A graph's model for model-based testing: the states, hops, guards and actions of its machine
 * with no actor invoked — every node (a coordinator too) leaves on the done or error event its
 * actor would send, human nodes on `human.reply`. `createTestModel` accepts it (it refuses
 * machines that invoke actors), and a path found on it is a sequence of the machine's own events.
 *
 * @example
 * import { createTestModel } from '@xstate/graph';
 * const model = createTestModel(graphModel(graph), graphPathOptions(graph));
 * for (const path of model.getShortestPaths()) await path.test({ events: { … } });
 */
export function graphModel(graph: RunnableGraph | GraphMachine): GraphMachine {
  return compileModel(specOf('toMachine' in graph ? graph.toMachine() : graph));
}
