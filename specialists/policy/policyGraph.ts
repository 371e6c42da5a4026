import { END, StateGraph, createModelFromEnv, type ModelClient } from 'switchboard/engine';
import { policyDraftNode } from './policyDraftNode.js';
import { policyReviewNode, reviewVerdictRouter } from './policyReviewNode.js';
import { requeryNode } from './requeryNode.js';
import { retrieveNode } from './retrieveNode.js';

/** Options for {@link policyGraph}. */
export interface PolicyGraphOptions {
  /** Default: `createModelFromEnv()` (offline without `OPENAI_API_KEY`). */
  model?: ModelClient;
  /** Most passages retrieved per round (default 3). */
  limit?: number;
  maxRequeries?: number;
  maxRevisions?: number;
}

/**
 * The policy-retrieval specialist as a subgraph named `rag`: `retrieve` → `draft` → `review`, then
 * the end (accepted, or `handoff` recorded in state), `requery` → `retrieve` on a retrieval gap, or
 * back to `draft` to revise. The answer cites the knowledge-base ids it used.
 *
 * @example
 * const run = await policyGraph({ model: new OfflineModel() }).run('Can I return Aero headphones after 3 days?');
 * run.outputText; // 'According to our policy: … [KB001]'
 */
export function policyGraph(options: PolicyGraphOptions = {}): StateGraph {
  const model = options.model ?? createModelFromEnv();
  return new StateGraph({ name: 'rag', maxSteps: 24 })
    .addNode('retrieve', retrieveNode(options.limit === undefined ? {} : { limit: options.limit }))
    .addNode('draft', policyDraftNode({ model }))
    .addNode(
      'review',
      policyReviewNode({
        ...(options.maxRequeries === undefined ? {} : { maxRequeries: options.maxRequeries }),
        ...(options.maxRevisions === undefined ? {} : { maxRevisions: options.maxRevisions }),
      }),
    )
    .addNode('requery', requeryNode())
    .start('retrieve')
    .addEdge('retrieve', 'draft')
    .addEdge('draft', 'review')
    .addConditionalEdges('review', reviewVerdictRouter, { accept: END, handoff: END, requery: 'requery', revise: 'draft' })
    .addEdge('requery', 'retrieve');
}
