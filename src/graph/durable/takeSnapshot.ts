import type { Actor } from 'xstate';
import { SwitchboardError, describeThrown } from '../../errors/SwitchboardError.js';
import { StoreError } from '../../persistence/StoreError.js';
import { assertStorable } from '../../persistence/storedJson.js';
import { storableSnapshot } from '../../trace/redact.js';
import { assertJson } from '../assertJson.js';
import type { GraphMachine } from '../compileMachine.js';
import { persistedSnapshot } from './persistedSnapshot.js';

/**
 * Runs `work` on a run's snapshot; any failure that is not already typed becomes one. XState's own
 * copy of the context, and the scrubbing walk, recurse without limit: a cycle or a value nested
 * very deeply overflows the stack there, so the context is checked again to name the key
 * (`not_json`, `value_too_large`), else the failure is `store_encoding`.
 */
export function typedSnapshotFailure<T>(actor: Actor<GraphMachine>, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw snapshotFailure(actor, error);
  }
}

/** What {@link typedSnapshotFailure} throws for `error`, thrown by work on the run's snapshot (for callers that run the work in place, with no closure). */
export function snapshotFailure(actor: Actor<GraphMachine>, error: unknown): unknown {
  if (error instanceof SwitchboardError) return error;
  assertStorable(actor.getSnapshot().context, 'snapshot.context');
  return new StoreError(`the run's snapshot cannot be stored: ${describeThrown(error)}`, { code: 'store_encoding', cause: error });
}

/**
 * The actor's persisted snapshot as it may be stored: without its output (a finished machine's
 * output repeats its context), checked to be JSON, secrets and inline images scrubbed. `persisted`
 * is the snapshot already taken with {@link persistedSnapshot}, if any.
 */
export function takeSnapshot(actor: Actor<GraphMachine>, secrets: readonly string[], persisted?: Record<string, unknown>): Record<string, unknown> {
  return typedSnapshotFailure(actor, () => {
    const snapshot = persisted ?? persistedSnapshot(actor);
    assertJson(snapshot, 'snapshot');
    return storableSnapshot(snapshot, secrets);
  });
}
