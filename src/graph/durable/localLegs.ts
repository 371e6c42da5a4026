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

/** Registers a leg of `runId` that `cancel` stops; the function returned removes it (call it when the leg ends). */
export function holdLocalLeg(runId: string, cancel: () => void): () => void {
  const legs = active.get(runId) ?? new Set<() => void>();
  legs.add(cancel);
  active.set(runId, legs);
  return () => {
    legs.delete(cancel);
    if (legs.size === 0 && active.get(runId) === legs) active.delete(runId);
  };
}
