import { END, StateGraph, type Coordinator } from '../../src/index.js';

/** What `StateGraph.addNode` takes as a node. */
type GraphNode = Parameters<StateGraph['addNode']>[1];

/**
 * start → plan → dispatch → END: `plan` (the coordinator's planNode, or any node that writes the
 * tasks) and then the coordinator's dispatch, as a graph named `name`.
 */
export function planDispatchGraph(coordinator: Coordinator, plan: GraphNode, name = 'parent'): StateGraph {
  return new StateGraph({ name }).addNode('plan', plan).addNode('dispatch', coordinator.dispatchNode()).start('plan').addEdge('plan', 'dispatch').addEdge('dispatch', END);
}
