import type { AgentContext } from './AgentContext.js';

/**
 * The abort signal of the step that was given this context (the run's cancel, or its spent
 * duration budget), kept beside the context rather than in it: a context is plain JSON and is
 * stored, a signal is neither. Keyed by the context object, so it lives only as long as the step's
 * context does.
 */
const signals = new WeakMap<AgentContext, AbortSignal>();

/** Hands a step's abort signal to the work its `execute` starts with `ctx` (see {@link stepSignal}). */
export function giveStepSignal(ctx: AgentContext, signal: AbortSignal): void {
  signals.set(ctx, signal);
}

/**
 * The abort signal of the step that got `ctx` in its `execute`, when the engine gave it one (a
 * model step, a sub-workflow; at the top level, in a `parallel` / `gather` branch or a fan-out
 * item): what its model calls pass on, so a cancelled run does not leave them running.
 */
export function stepSignal(ctx: AgentContext): AbortSignal | undefined {
  return signals.get(ctx);
}
