import type { WorkflowContext } from 'switchboard/engine';
import { z } from 'zod';

/** Why a specialist asks for a person: the reason shown at `human_handoff`, and the node that asked. */
export const Handoff = z.object({ reason: z.string().min(1), node: z.string().min(1) });
/** Why a specialist asks for a person (see {@link Handoff}). */
export type Handoff = z.infer<typeof Handoff>;

/** The shared-state key a specialist writes when the run should go to `human_handoff`. */
export const HANDOFF_KEY = 'handoff';

/**
 * Records that the run needs a person, e.g. `requestHandoff(ctx, 'tool loop reached budget', 'tool_plan')`.
 * Specialists never throw for this: the graph routes on the recorded value.
 */
export function requestHandoff(ctx: WorkflowContext, reason: string, node: string): Handoff {
  const handoff = Handoff.parse({ reason, node });
  ctx.put(HANDOFF_KEY, handoff);
  return handoff;
}

/** The recorded handoff request, or null when no specialist asked for a person. */
export function handoffOf(ctx: WorkflowContext): Handoff | null {
  const parsed = Handoff.safeParse(ctx.get(HANDOFF_KEY));
  return parsed.success ? parsed.data : null;
}
