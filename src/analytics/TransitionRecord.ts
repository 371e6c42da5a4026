import { z } from 'zod';

/** The state every run leaves first: its first transition goes from here to its first node. */
export const START_STATE = '__start__';

/** Prefix of the absorbing states: a run's last transition goes to `__end__:<final status>`. */
export const END_PREFIX = '__end__:';

/** The absorbing state of a final status, e.g. `__end__:completed`. */
export function endState(status: string): string {
  return `${END_PREFIX}${status}`;
}

/** The final status an absorbing state stands for (`__end__:failed` → `failed`), or null for any other state. */
export function statusOfState(state: string): string | null {
  return state.startsWith(END_PREFIX) ? state.slice(END_PREFIX.length) : null;
}

/**
 * One step transition of a run: the run left `from` (a node id, or {@link START_STATE}) for `to` (the
 * next node id, or `__end__:<status>` when the run ended there). `durationMs`, `tokens` and
 * `costUsd` belong to the step spent in `from` (0, 0 and undefined for the start). `nodeType` is the
 * kind of `from`: `start`, `node`, `agent` (it called a model), `human` (it waited for a reply) or
 * `coordinator` (it ran specialists). `label` says why this hop was taken: the route key a router
 * answered, `transition[i]`, `end`, `start`, or the final status. `runId` is a specialist's own id
 * (`<run>/<kind>[n]`) for a specialist's transitions, and `path` its place in the trace (`root` for
 * the top-level run).
 */
export const TransitionRecord = z.object({
  runId: z.string().min(1),
  workflow: z.string(),
  from: z.string().min(1),
  to: z.string().min(1),
  at: z.number(),
  durationMs: z.number().nonnegative(),
  tokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative().optional(),
  nodeType: z.string(),
  label: z.string(),
  path: z.string().optional(),
});
/** One step transition of a run (see the schema's description). */
export type TransitionRecord = z.infer<typeof TransitionRecord>;
