import type { AgentNode, WorkflowContext } from 'switchboard/engine';
import { z } from 'zod';
import { checkRetrieveLimit } from './checkRetrieveLimit.js';
import { searchPolicies, type PolicyHit } from './searchPolicies.js';
import { activeFaults } from '../shared/Fault.js';
import { questionOf } from '../shared/questionOf.js';
import { specialistNode } from '../shared/specialistNode.js';
import { ImageDescription, VISION_KEY } from '../vision/ImageDescription.js';

/** Options for {@link retrieveNode}. */
export interface RetrieveNodeOptions {
  /** Most passages retrieved (default 3). */
  limit?: number;
}

const Queries = z.array(z.string());

/** The query of this round: the one `requery` wrote, else the question plus any image text. */
function queryFor(ctx: WorkflowContext, question: string): string {
  const requested = z.string().min(1).safeParse(ctx.get('retrievalQuery'));
  const rounds = z.number().int().safeParse(ctx.get('retrievalRounds'));
  if (requested.success && rounds.success && rounds.data > 0) return requested.data;
  const vision = ImageDescription.safeParse(ctx.get(VISION_KEY));
  const asked = vision.success && vision.data.recognized ? `${question}\n${vision.data.text}` : question;
  // A fault code the classifier read from a description ("red light blinking") names the document outright.
  const code = z.string().regex(/^E\d{2}$/).safeParse(ctx.get('faultCode'));
  return code.success && !asked.toUpperCase().includes(code.data) ? `${asked}\nLED fault code ${code.data}` : asked;
}

/**
 * The `retrieve` node: searches the knowledge base and records what it found.
 *
 * Reads `question` (or the request input), `vision.text` when an image was described, `faultCode`
 * (from `classify`) when the question describes an LED signal without naming its code, and
 * `retrievalQuery` when a `requery` node has written a changed query. With the `retrieval_gap`
 * fault the first round finds nothing, as a real index miss would.
 *
 * Writes `retrieved` (ids, best first), `passages` ({@link PolicyHit}[]), `retrievalQuery` (the
 * query used), `retrievalQueries` (every query so far), `retrievalRounds` and `retrievalGap`
 * (true when nothing was found). Returns null, so the next node gets the same request; streams a
 * `retrieval.hits` event.
 *
 * @example
 * graph.addNode('retrieve', retrieveNode({ limit: 3 }));
 */
export function retrieveNode(options: RetrieveNodeOptions = {}): AgentNode {
  const limit = checkRetrieveLimit(options.limit);
  return specialistNode('retrieve', (ctx, request, emit) => {
    const question = questionOf(ctx, request);
    const query = queryFor(ctx, question);
    const round = (z.number().int().safeParse(ctx.get('retrievalRounds')).data ?? 0) + 1;
    const injectedGap = round === 1 && activeFaults(ctx).includes('retrieval_gap');
    const hits: PolicyHit[] = injectedGap ? [] : searchPolicies(query, { limit });
    const previous = Queries.safeParse(ctx.get('retrievalQueries')).data ?? [];
    ctx.put('retrievalQuery', query);
    ctx.put('retrievalQueries', [...previous, query]);
    ctx.put('retrievalRounds', round);
    ctx.put('retrieved', hits.map((h) => h.id));
    ctx.put('passages', hits);
    ctx.put('retrievalGap', hits.length === 0);
    emit({ type: 'retrieval.hits', round, query, ids: hits.map((h) => h.id), injectedGap });
    return null;
  });
}
