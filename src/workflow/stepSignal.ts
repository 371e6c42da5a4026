/** Where a step's abort signal comes from: read when the step first asks for it (a signal per step is not free). */
export interface StepSignalSource {
  readonly signal?: AbortSignal | undefined;
}

/**
 * The abort signal of the step that was given this context (the run's cancel, or its spent
 * duration budget), kept beside the context rather than in it: a context is plain JSON and is
 * stored, a signal is neither. Keyed by the context object (an `AgentContext`; typed as any object
 * so this module needs nothing of it), so it lives only as long as the step's context does.
 */
const signals = new WeakMap<object, StepSignalSource>();

/** Hands a step's abort signal to the work its `execute` starts with `ctx` (see {@link stepSignal}). */
export function giveStepSignal(ctx: object, source: StepSignalSource): void {
  signals.set(ctx, source);
}

/** Where `ctx`'s signal comes from, if it has one: a context made from it keeps the same signal. */
export function stepSignalSource(ctx: object): StepSignalSource | undefined {
  return signals.get(ctx);
}

/**
 * The abort signal of the step that got `ctx` in its `execute`, when the engine gave it one (every
 * step a run executes: at the top level, in a `parallel` / `gather` branch, a fan-out item or a
 * sub-workflow): what its model calls pass on, so a cancelled run does not leave them running.
 * Steps read it as `ctx.signal`.
 */
export function stepSignal(ctx: object): AbortSignal | undefined {
  return signals.get(ctx)?.signal;
}
