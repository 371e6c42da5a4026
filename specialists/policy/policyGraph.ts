import { END, StateGraph, createModelFromEnv, lazyNode, modelNode, type ModelCatalog, type ModelClient } from 'switchboard/engine';
import { checkRetrieveLimit } from './checkRetrieveLimit.js';
import { reviewVerdictRouter } from './reviewVerdictRouter.js';

/** Options for {@link policyGraph}. */
export interface PolicyGraphOptions {
  /** Default: `createModelFromEnv()` (offline without `OPENAI_API_KEY`). */
  model?: ModelClient;
  /** The models a run chooses from by its state's `model` (see `modelNode`); wins over `model`. */
  models?: ModelCatalog;
  /** Most passages retrieved per round (default 3). */
  limit?: number;
  maxRequeries?: number;
  maxRevisions?: number;
}

/**
 * The policy-retrieval specialist as a subgraph named `rag`: `retrieve` → `draft` → `review`, then
 * the end (accepted, or `handoff` recorded in state), `requery` → `retrieve` on a retrieval gap, or
 * back to `draft` to revise. The answer cites the knowledge-base ids it used. Each node's modules
 * (search, drafting, review) load when it first runs, so a graph that never reaches `rag` never
 * loads them.
 *
 * @example
 * const run = await policyGraph({ model: new OfflineModel() }).run('Can I return Aero headphones after 3 days?');
 * run.outputText; // 'According to our policy: … [KB001]'
 */
export function policyGraph(options: PolicyGraphOptions = {}): StateGraph {
  const models = options.models ?? options.model ?? createModelFromEnv();
  const limit = checkRetrieveLimit(options.limit);
  const review = {
    ...(options.maxRequeries === undefined ? {} : { maxRequeries: options.maxRequeries }),
    ...(options.maxRevisions === undefined ? {} : { maxRevisions: options.maxRevisions }),
  };
  return new StateGraph({ name: 'rag', maxSteps: 24 })
    .addNode('retrieve', lazyNode('retrieve', async () => (await import('./retrieveNode.js')).retrieveNode({ limit })))
    .addNode('draft', modelNode('draft', models, (model) => lazyNode('draft', async () => (await import('./policyDraftNode.js')).policyDraftNode({ model }))))
    .addNode('review', lazyNode('review', async () => (await import('./policyReviewNode.js')).policyReviewNode(review)))
    .addNode('requery', lazyNode('requery', async () => (await import('./requeryNode.js')).requeryNode()))
    .start('retrieve')
    .addEdge('retrieve', 'draft')
    .addEdge('draft', 'review')
    .addConditionalEdges('review', reviewVerdictRouter, { accept: END, handoff: END, requery: 'requery', revise: 'draft' })
    .addEdge('requery', 'retrieve');
}
