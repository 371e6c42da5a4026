import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { MAX_TIMEOUT_MS } from '../model/modelLimits.js';

/**
 * What a dispatch does when a specialist fails (after its retries):
 * - `continue`: the others run on; the failure is in the results.
 * - `cancel-siblings`: the specialists still running or waiting are cancelled, then the join
 *   completes with the results so far (the failed and cancelled tasks marked as such).
 * - `fail`: the others are cancelled and the run fails, its error naming the task and why.
 */
export type OnFailure = 'continue' | 'fail' | 'cancel-siblings';

/** A coordinator's failure policy, checked when the coordinator is built. */
export interface FailurePolicy {
  onFailure: OnFailure;
  /**
   * The run fails unless at least this many tasks complete; it fails as soon as that can no
   * longer happen (the specialists still running are cancelled then).
   */
  minCompleted: number;
  /** Default time limit of one attempt of a task, in ms (null: none). Time spent waiting for a person does not count. */
  timeoutMs: number | null;
  /** Default number of further attempts after a task fails or times out. */
  retries: number;
}

const ON_FAILURE: readonly OnFailure[] = ['continue', 'fail', 'cancel-siblings'];

function checkTimeout(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  // Node fires a timer of more than MAX_TIMEOUT_MS at once: such a limit would time every attempt out at its start.
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    throw new GraphDefinitionError(`Coordinator: taskTimeoutMs must be a positive integer of milliseconds, at most ${MAX_TIMEOUT_MS}; received ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * The most further attempts a task may have: a specialist that always fails is started again each
 * time, and no step fuse counts these (a plan a model wrote could ask for a billion).
 */
export const MAX_RETRIES = 100;

function checkRetries(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_RETRIES) {
    throw new GraphDefinitionError(`Coordinator: retries must be a whole number from 0 to ${MAX_RETRIES} (further attempts after a failure); received ${JSON.stringify(value)}`);
  }
  return value;
}

/** The policy from a coordinator's options, or a GraphDefinitionError saying which option is wrong. */
export function failurePolicy(options: { onFailure?: unknown; minCompleted?: unknown; taskTimeoutMs?: unknown; retries?: unknown }): FailurePolicy {
  const onFailure = options.onFailure ?? 'continue';
  if (!ON_FAILURE.includes(onFailure as OnFailure)) {
    throw new GraphDefinitionError(`Coordinator: onFailure must be one of ${ON_FAILURE.map((o) => `'${o}'`).join(', ')}; received ${JSON.stringify(onFailure)}`);
  }
  const minCompleted = options.minCompleted ?? 0;
  if (typeof minCompleted !== 'number' || !Number.isInteger(minCompleted) || minCompleted < 0) {
    throw new GraphDefinitionError(`Coordinator: minCompleted must be a non-negative integer; received ${JSON.stringify(minCompleted)}`);
  }
  return {
    onFailure: onFailure as OnFailure,
    minCompleted,
    timeoutMs: checkTimeout(options.taskTimeoutMs),
    retries: checkRetries(options.retries),
  };
}
