/**
 * The legs this process executes now, by run, each as what cancels it: two legs of one run can
 * overlap (a stale one and the one that took the run over). Stored runs' legs (`durableLeg`) and
 * the legs of runs held in memory (`memoryLeg`) alike, so a cancel reaches the node in flight.
 */
const active = new Map<string, Set<() => void>>();

/** Cancels a run this process is executing right now (every leg of it here); false if it is not running here. */
export function abortLocalRun(runId: string): boolean {
  const legs = active.get(runId);
  for (const cancel of legs ?? []) cancel();
  return legs !== undefined;
}

/** What stops one leg a process runs (see {@link holdLeg}). */
export interface LegStop {
  /** Aborted to stop this leg only (a cancel, a takeover, a failed write): the node in flight sees it. */
  readonly local: AbortController;
  /** Cancels the run here: stops this leg and aborts the runtime's `cancellation` too. */
  readonly cancel: () => void;
  /** Call when the leg ends: it is no longer found by {@link abortLocalRun}, nor by the caller's signal. */
  readonly release: () => void;
}

/**
 * Sets up how a leg of `runId` stops: `cancelRun` in this process ({@link abortLocalRun}) or the
 * caller's `signal` cancels it, and a cancel (not a takeover or a failed write, which only stop this
 * leg) is also the runtime's, so a coordinator's dispatch cancels the specialist runs it created.
 */
export function holdLeg(runtime: { cancellation: AbortSignal | null }, runId: string, signal: AbortSignal | undefined): LegStop {
  const local = new AbortController();
  const cancellation = new AbortController();
  runtime.cancellation = cancellation.signal;
  const cancel = () => {
    cancellation.abort();
    local.abort();
  };
  const unhold = holdLocalLeg(runId, cancel);
  signal?.addEventListener('abort', cancel, { once: true });
  if (signal?.aborted) cancel();
  return {
    local,
    cancel,
    release: () => {
      unhold();
      signal?.removeEventListener('abort', cancel);
    },
  };
}

/** Registers a leg of `runId` that `cancel` stops; the function returned removes it (call it when the leg ends). */
function holdLocalLeg(runId: string, cancel: () => void): () => void {
  const legs = active.get(runId) ?? new Set<() => void>();
  legs.add(cancel);
  active.set(runId, legs);
  return () => {
    legs.delete(cancel);
    if (legs.size === 0 && active.get(runId) === legs) active.delete(runId);
  };
}
