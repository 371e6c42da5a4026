import type { WorkflowContext } from 'switchboard/engine';
import { z } from 'zod';

/**
 * The faults a run can inject to exercise its recovery paths: `retrieval_gap` (the first retrieval
 * finds nothing), `tool_timeout` (the first tool call times out), `review_rework` (the first review
 * asks for a revision).
 */
export const Fault = z.enum(['retrieval_gap', 'tool_timeout', 'review_rework']);
/** A fault a run can inject (see {@link Fault}). */
export type Fault = z.infer<typeof Fault>;

/** The shared-state key holding the injected faults: an array of {@link Fault} names. */
export const FAULTS_KEY = 'faults';

/**
 * The faults injected into this run, read from `state.faults`. Unknown names and non-string
 * entries are ignored, so a stale or hand-written state never breaks a node.
 *
 * @example
 * if (activeFaults(ctx).includes('tool_timeout')) { … }
 */
export function activeFaults(ctx: WorkflowContext): Fault[] {
  const raw = z.array(z.unknown()).safeParse(ctx.get(FAULTS_KEY));
  if (!raw.success) return [];
  return raw.data.flatMap((name) => {
    const parsed = Fault.safeParse(name);
    return parsed.success ? [parsed.data] : [];
  });
}
