import { z } from 'zod';
import { CitationCheck, citesOnlyRetrieved } from './citesOnlyRetrieved.js';
import type { Fault } from '../shared/Fault.js';

/** What review decided: accept the draft, requery (retrieval gap), revise the draft, or hand off to a person. */
export const ReviewVerdict = z.enum(['accept', 'requery', 'revise', 'handoff']);
/** What review decided (see {@link ReviewVerdict}). */
export type ReviewVerdict = z.infer<typeof ReviewVerdict>;

/** A review decision as stored under `review` in the shared state. */
export const PolicyReview = z.object({
  verdict: ReviewVerdict,
  /** Why; empty when accepted. For `handoff`, the reason shown at `human_handoff`. */
  reason: z.string(),
  /** The review round, 1-based. */
  round: z.number().int().positive(),
  citations: CitationCheck,
});
/** A review decision (see {@link PolicyReview}). */
export type PolicyReview = z.infer<typeof PolicyReview>;

/** What {@link reviewPolicyDraft} looks at. */
export interface PolicyDraftUnderReview {
  draft: string;
  retrieved: readonly string[];
  faults: readonly Fault[];
  /** This review's round, 1-based. */
  round: number;
  /** Requeries made so far. */
  requeries: number;
  /** Revisions asked for so far. */
  revisions: number;
  /** Most requeries before a gap goes to a person (default 1). */
  maxRequeries?: number;
  /** Most revisions before a bad draft goes to a person (default 2). */
  maxRevisions?: number;
}

/**
 * Reviews a policy draft. In order: nothing retrieved → `requery` (or `handoff` when requeries are
 * spent); the `review_rework` fault before any revision → `revise`; a draft that cites nothing it
 * retrieved, or cites what it did not retrieve → `revise` (or `handoff` with "review loop reached
 * budget" when revisions are spent); otherwise `accept`.
 *
 * @example
 * reviewPolicyDraft({ draft: 'Full refund [KB001]', retrieved: ['KB001'], faults: [], round: 1, requeries: 0, revisions: 0 }).verdict; // 'accept'
 */
export function reviewPolicyDraft(input: PolicyDraftUnderReview): PolicyReview {
  const maxRequeries = input.maxRequeries ?? 1;
  const maxRevisions = input.maxRevisions ?? 2;
  const citations = citesOnlyRetrieved(input.draft, input.retrieved);
  const decide = (verdict: ReviewVerdict, reason: string): PolicyReview => ({ verdict, reason, round: input.round, citations });
  if (input.retrieved.length === 0) {
    return input.requeries < maxRequeries
      ? decide('requery', 'retrieval found no policy document; search again with a changed query')
      : decide('handoff', `retrieval found no policy document${input.requeries > 0 ? ' after requerying' : ''}`);
  }
  if (input.revisions === 0 && input.faults.includes('review_rework')) {
    return decide('revise', 'fault injected: review_rework asks for one revision');
  }
  if (!citations.ok) {
    return input.revisions < maxRevisions ? decide('revise', citations.reason) : decide('handoff', 'review loop reached budget');
  }
  return decide('accept', '');
}
