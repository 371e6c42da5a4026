import type { RunPatch, RunStore, StoredEvent } from '../../src/index.js';
import { storeWith } from './storeWith.js';

/**
 * The store as a leg sees it, with the write that carries `run.completed` (or the first one `which`
 * picks) held until `release()`: `reached` resolves when that write is held. Only that one write is
 * held; the writes after it go through.
 */
export function holdingLastWrite(
  store: RunStore,
  which: (patch: RunPatch, events: StoredEvent[]) => boolean = (_patch, events) => events.some((e) => e.type === 'run.completed'),
): { store: RunStore; reached: Promise<void>; release(): void } {
  let release: () => void = () => {};
  let reach: () => void = () => {};
  const reached = new Promise<void>((resolve) => (reach = resolve));
  let holding = false;
  const wrapped = storeWith(store, {
    updateRun: (original) => async (runId: string, version: number, patch: RunPatch, events: StoredEvent[] = []) => {
      if (!holding && which(patch, events)) {
        holding = true;
        const held = new Promise<void>((resolve) => (release = resolve));
        reach();
        await held;
      }
      return original(runId, version, patch, events);
    },
  });
  return { store: wrapped, reached, release: () => release() };
}
