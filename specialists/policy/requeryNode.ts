import type { AgentNode } from 'switchboard/engine';
import { z } from 'zod';
import { rewriteQuery } from './rewriteQuery.js';
import { questionOf } from '../shared/questionOf.js';
import { specialistNode } from '../shared/specialistNode.js';

/**
 * The `requery` node, taken when review finds a retrieval gap: it writes a changed query to
 * `retrievalQuery` (see {@link rewriteQuery}; never one already tried) and counts `requeryCount`,
 * then the graph goes back to `retrieve`. Returns the new query as its output text.
 *
 * @example
 * graph.addNode('requery', requeryNode()).addEdge('requery', 'retrieve');
 */
export function requeryNode(): AgentNode {
  return specialistNode('requery', (ctx, request, emit) => {
    const question = questionOf(ctx, request);
    const previous = z.array(z.string()).safeParse(ctx.get('retrievalQueries')).data ?? [];
    const query = rewriteQuery(question, previous);
    const count = (z.number().int().safeParse(ctx.get('requeryCount')).data ?? 0) + 1;
    ctx.put('retrievalQuery', query);
    ctx.put('requeryCount', count);
    emit({ type: 'retrieval.requery', count, query });
    return query;
  });
}
