import { isCompilableNode } from '../graph/CompilableNode.js';
import { specOf } from '../graph/compileMachine.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';

/**
 * The graphs a worker can advance, by name: the registered ones and, below them, every
 * coordinator's specialist graphs (their runs are jobs of their own on the queue). A registered
 * graph wins over a specialist of the same name.
 */
export function withSpecialistGraphs(graphs: Iterable<RunnableGraph>): Map<string, RunnableGraph> {
  const byName = new Map<string, RunnableGraph>();
  const pending: RunnableGraph[] = [...graphs];
  for (const graph of pending) if (!byName.has(graph.name)) byName.set(graph.name, graph);
  for (let i = 0; i < pending.length; i++) {
    for (const { node } of specOf(pending[i]!.toMachine()).nodes) {
      if (!isCompilableNode(node) || node.childGraphs === undefined) continue;
      for (const child of node.childGraphs()) {
        if (byName.has(child.name)) continue;
        byName.set(child.name, child);
        pending.push(child);
      }
    }
  }
  return byName;
}
