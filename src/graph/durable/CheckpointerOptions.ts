import type { RunRecord } from '../../persistence/RunStore.js';
import type { Clock } from '../RunOptions.js';
import type { EventIntake } from './EventIntake.js';

/** Options for a {@link Checkpointer}. */
export interface CheckpointerOptions {
  owner: string;
  leaseMs: number;
  clock: Clock;
  secrets: readonly string[];
  /** Called once when a write loses its compare-and-set (the run was cancelled or taken over elsewhere). */
  onFenced: (current: RunRecord | null) => void;
  /** Called once when a write fails (a value too large or not JSON, a store that is down): the run should stop. */
  onFailed?: (error: unknown) => void;
  /**
   * Called once when renewing the lease finds the run cancelled elsewhere, this leg still its owner:
   * the leg should stop now (its node in flight sees the abort) rather than at its next write.
   */
  onCancelled?: () => void;
  /**
   * The persisted snapshot the run's row holds (as `persistedSnapshot` took it), so the first
   * checkpoint can be a step record; without it the first checkpoint is a full snapshot.
   */
  base?: { snapshot: Record<string, unknown>; bytes: number };
  /** The intake that took a new run's events before its row existed: it goes on taking them, and those are written first. */
  early?: EventIntake;
  /** The run's place in its trace (default `root`): its own events carry it (see `cancelledEvents`). */
  path?: string;
}
