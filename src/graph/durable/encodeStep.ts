import type { Actor } from 'xstate';
import { diffSnapshot, snapshotChangeSize, type SnapshotPatch } from '../../persistence/snapshotPatch.js';
import { StoreError } from '../../persistence/StoreError.js';
import { encodeStored, storableSize } from '../../persistence/storedJson.js';
import { storableSnapshot } from '../../trace/redact.js';
import type { GraphMachine } from '../compileMachine.js';
import { takeSnapshot, typedSnapshotFailure } from './takeSnapshot.js';

/** The patch with secrets and inline images scrubbed from the values it writes (keys are kept, as in a snapshot). */
function scrubPatch(patch: SnapshotPatch, secrets: readonly string[]): SnapshotPatch {
  const out: SnapshotPatch = {};
  if (patch.set !== undefined) {
    const set: Record<string, unknown> = {};
    for (const key of Object.keys(patch.set)) Object.defineProperty(set, key, { value: storableSnapshot(patch.set[key], secrets), enumerable: true, writable: true, configurable: true });
    out.set = set;
  }
  if (patch.del !== undefined) out.del = patch.del;
  if (patch.at !== undefined) {
    const at: Record<string, SnapshotPatch> = {};
    for (const key of Object.keys(patch.at)) Object.defineProperty(at, key, { value: scrubPatch(patch.at[key]!, secrets), enumerable: true, writable: true, configurable: true });
    out.at = at;
  }
  if (patch.push !== undefined) out.push = storableSnapshot(patch.push, secrets);
  return out;
}

/**
 * One step record: what changed in the actor's persisted snapshot since `base`, checked and
 * encoded as the store keeps it, or null when nothing changed. It costs what changed, not the size
 * of the state. A value that cannot be stored fails as it would in a full snapshot, naming its key
 * (`not_json`, `value_too_large`), before anything is queued.
 */
export function encodeStep(actor: Actor<GraphMachine>, base: Record<string, unknown>, next: Record<string, unknown>, secrets: readonly string[], limit: number): string | null {
  return typedSnapshotFailure(actor, () => {
    const patch = diffSnapshot(base, next);
    if (patch === null) return null;
    try {
      return encodeStored(scrubPatch(patch, secrets), 'snapshot', limit);
    } catch (error) {
      // The same check on the whole snapshot names the key the way a user wrote it.
      if (error instanceof StoreError) encodeStored(takeSnapshot(actor, secrets, next), 'snapshot', limit);
      throw error;
    }
  });
}

/**
 * Checks what one macrostep changed in the persisted snapshot (`prev` → `next`) the way
 * {@link encodeStep} would store it, without encoding it: a value that is not JSON or nested too
 * deeply fails here, at its step, naming its key (`not_json`, `value_too_large`), and so does a
 * change too large for one record. Returns about how many bytes the change takes (see
 * `storableSize`), or null when nothing changed. The records themselves are encoded once per
 * commit, for all the steps since the last one ({@link encodeStep} from the last committed
 * snapshot): a recovery applies them in order, and needs only where each commit left the run.
 */
export function checkStep(actor: Actor<GraphMachine>, prev: Record<string, unknown>, next: Record<string, unknown>, secrets: readonly string[], limit: number): number | null {
  // Most steps change a few small values: measured in one walk that builds nothing.
  const quick = snapshotChangeSize(prev, next);
  if (quick === null) return null;
  if (quick >= 0 && quick * 6 <= limit) return quick;
  return checkStepFully(actor, prev, next, secrets, limit);
}

/** {@link checkStep} for a change the quick walk does not measure, or that could be near the limit (apart: its closure would make every step allocate). */
function checkStepFully(actor: Actor<GraphMachine>, prev: Record<string, unknown>, next: Record<string, unknown>, secrets: readonly string[], limit: number): number | null {
  return typedSnapshotFailure(actor, () => {
    let bytes = 0;
    let patch: SnapshotPatch | null;
    try {
      patch = diffSnapshot(prev, next, (value, keys) => {
        bytes += storableSize(value, 'snapshot');
        for (const key of keys) bytes += key.length + 16;
      });
    } catch (error) {
      if (error instanceof StoreError) encodeStored(takeSnapshot(actor, secrets, next), 'snapshot', limit);
      throw error;
    }
    if (patch === null) return null;
    // JSON takes at most 6 bytes per counted one: only a change that could be over the limit is encoded to be sure.
    if (bytes * 6 > limit) encodeStep(actor, prev, next, secrets, limit);
    return bytes;
  });
}
