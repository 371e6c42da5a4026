import type { AgentNode, ModelClient } from 'switchboard/engine';
import { createModelFromEnv } from 'switchboard/engine';
import { z } from 'zod';
import { citedIds } from './citesOnlyRetrieved.js';
import { draftPolicyAnswer } from './draftPolicyAnswer.js';
import { PolicyHit } from './searchPolicies.js';
import { PolicyReview } from './reviewPolicyDraft.js';
import { questionOf } from '../shared/questionOf.js';
import { specialistNode } from '../shared/specialistNode.js';

/** Options for {@link policyDraftNode}. */
export interface PolicyDraftNodeOptions {
  /** Default: `createModelFromEnv()` (offline without `OPENAI_API_KEY`). */
  model?: ModelClient;
}

/**
 * The policy `draft` node: writes an answer from the retrieved passages, citing them as `[KB001]`
 * (see {@link draftPolicyAnswer}).
 *
 * Reads `question`, `passages` (from `retrieve`) and, after a rejected draft, `review.reason`.
 * Writes `draft` (the answer), `draftCitations` (the ids it cites) and `draftRounds`. Returns the
 * draft as its output text.
 *
 * @example
 * graph.addNode('draft', policyDraftNode({ model }));
 */
export function policyDraftNode(options: PolicyDraftNodeOptions = {}): AgentNode {
  const model = options.model ?? createModelFromEnv();
  return specialistNode('draft', async (ctx, request) => {
    const question = questionOf(ctx, request);
    const passages = z.array(PolicyHit).safeParse(ctx.get('passages')).data ?? [];
    const review = PolicyReview.safeParse(ctx.get('review'));
    const feedback = review.success && review.data.verdict === 'revise' ? review.data.reason : undefined;
    const draft = await draftPolicyAnswer(question, passages, { model, signal: ctx.signal, workflow: ctx, ...(feedback ? { feedback } : {}) });
    ctx.put('draft', draft);
    ctx.put('draftCitations', citedIds(draft));
    ctx.put('draftRounds', (z.number().int().safeParse(ctx.get('draftRounds')).data ?? 0) + 1);
    return draft;
  });
}
