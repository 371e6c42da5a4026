import type { StateRouter } from 'switchboard/engine';
import { PolicyReview } from './reviewPolicyDraft.js';

/**
 * A router returning the last review's verdict (`accept`, `requery`, `revise`, `handoff`); use it
 * with a route map. Its own module, so a graph routes on it without loading the review node.
 */
export const reviewVerdictRouter: StateRouter = (ctx) => PolicyReview.safeParse(ctx.get('review')).data?.verdict ?? null;
