import { lazyNode, type AgentNode } from 'switchboard/engine';
import { citesOnlyRetrieved } from '../../specialists/policy/citesOnlyRetrieved.js';
import type { PolicyReview } from '../../specialists/policy/reviewPolicyDraft.js';
import { activeFaults } from '../../specialists/shared/Fault.js';
import { requestHandoff } from '../../specialists/shared/Handoff.js';
import type { Classification } from './Classification.js';

/**
 * `review`: a policy draft gets the policy review (it must cite what it retrieved; a retrieval gap
 * asks for a requery). Other drafts are accepted unless the `review_rework` fault asks for one
 * revision or the draft is empty; the review loop is capped at `maxRounds` rounds, after which the
 * run goes to a person with "review loop reached budget". The verdict goes to `review`.
 */
export function reviewNode(options: { maxRounds?: number } = {}): AgentNode {
  const maxRounds = options.maxRounds ?? 3;
  // The policy review's modules load on the first policy answer.
  const policy = lazyNode('review', async () => (await import('../../specialists/policy/policyReviewNode.js')).policyReviewNode());
  return {
    name: 'review',
    async execute(ctx, request) {
      const route = ctx.get<Classification>('classification')?.route ?? 'general';
      const round = (ctx.get<number>('reviewRounds') ?? 0) + 1;
      if (round > maxRounds) {
        ctx.put('reviewRounds', round);
        const review: PolicyReview = { verdict: 'handoff', reason: 'review loop reached budget', round, citations: citesOnlyRetrieved('', []) };
        ctx.put('review', review);
        requestHandoff(ctx, review.reason, 'review');
        return null;
      }
      if (route === 'rag') return policy.execute(ctx, request);
      const draft = ctx.get<string>('draft') ?? '';
      const revisions = ctx.get<number>('revisions') ?? 0;
      let verdict: PolicyReview['verdict'] = 'accept';
      let reason = '';
      if (draft.trim() === '') [verdict, reason] = ['handoff', 'there is no draft to send'];
      else if (revisions === 0 && activeFaults(ctx).includes('review_rework')) [verdict, reason] = ['revise', 'fault injected: review_rework asks for one revision'];
      const review: PolicyReview = { verdict, reason, round, citations: citesOnlyRetrieved(draft, ctx.get<string[]>('retrieved') ?? []) };
      ctx.put('review', review);
      ctx.put('reviewRounds', round);
      if (verdict === 'revise') ctx.put('revisions', revisions + 1);
      if (verdict === 'handoff') requestHandoff(ctx, reason, 'review');
      return verdict === 'accept' ? draft : null;
    },
  };
}
