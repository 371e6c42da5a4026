import type { AgentNode } from 'switchboard/engine';
import { z } from 'zod';
import { reviewPolicyDraft, type PolicyReview } from './reviewPolicyDraft.js';
import { activeFaults } from '../shared/Fault.js';
import { requestHandoff } from '../shared/Handoff.js';
import { specialistNode } from '../shared/specialistNode.js';

/** Options for {@link policyReviewNode}. */
export interface PolicyReviewNodeOptions {
  /** Most requeries before a retrieval gap goes to a person (default 1). */
  maxRequeries?: number;
  /** Most revisions before a bad draft goes to a person (default 2). */
  maxRevisions?: number;
}

const count = (value: unknown) => z.number().int().nonnegative().safeParse(value).data ?? 0;

/**
 * The policy `review` node (see {@link reviewPolicyDraft}).
 *
 * Reads `draft`, `retrieved`, `faults`, `requeryCount`, `revisions` and `reviewRounds`. Writes
 * `review` ({@link PolicyReview}), `reviewRounds`, `revisions` (on `revise`) and, on `handoff`,
 * `handoff` = `{ reason, node: 'review' }`. Returns the draft as output text when accepted, null
 * otherwise. Route on it with {@link reviewVerdictRouter}.
 *
 * @example
 * graph.addNode('review', policyReviewNode())
 *   .addConditionalEdges('review', reviewVerdictRouter, { accept: END, requery: 'requery', revise: 'draft', handoff: 'human_handoff' });
 */
export function policyReviewNode(options: PolicyReviewNodeOptions = {}): AgentNode {
  return specialistNode('review', (ctx, _request, emit) => {
    const round = count(ctx.get('reviewRounds')) + 1;
    const revisions = count(ctx.get('revisions'));
    const review = reviewPolicyDraft({
      draft: z.string().safeParse(ctx.get('draft')).data ?? '',
      retrieved: z.array(z.string()).safeParse(ctx.get('retrieved')).data ?? [],
      faults: activeFaults(ctx),
      round,
      requeries: count(ctx.get('requeryCount')),
      revisions,
      ...(options.maxRequeries === undefined ? {} : { maxRequeries: options.maxRequeries }),
      ...(options.maxRevisions === undefined ? {} : { maxRevisions: options.maxRevisions }),
    });
    ctx.put('review', review);
    ctx.put('reviewRounds', round);
    if (review.verdict === 'revise') ctx.put('revisions', revisions + 1);
    if (review.verdict === 'handoff') requestHandoff(ctx, review.reason, 'review');
    emit({ type: 'review.verdict', round, verdict: review.verdict, reason: review.reason });
    return review.verdict === 'accept' ? (ctx.get<string>('draft') ?? '') : null;
  });
}

export { reviewVerdictRouter } from './reviewVerdictRouter.js';
