import { GraphDefinitionError } from '../../errors/GraphDefinitionError.js';
import { UsageError } from '../../errors/UsageError.js';
import type { RunnableGraph } from '../../graph/RunnableGraph.js';

/** A loaded graph by name, or the first one when no name is given. */
export function findGraph(graphs: readonly RunnableGraph[], name?: string): RunnableGraph {
  const known = graphs.map((g) => g.name).join(', ') || '(none)';
  if (name === undefined) {
    const first = graphs[0];
    if (first === undefined) throw new GraphDefinitionError('the graphs module lists no graph; export `graphs` with at least one StateGraph');
    return first;
  }
  const graph = graphs.find((g) => g.name === name);
  if (graph === undefined) throw new UsageError(`no graph named "${name}" is registered; known: ${known}`);
  return graph;
}
