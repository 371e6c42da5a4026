import { z } from 'zod';
import type { SerializedError } from '../errors/SwitchboardError.js';
import { MAX_TIMEOUT_MS } from '../model/modelLimits.js';
import { MAX_RETRIES } from './FailurePolicy.js';

/** One unit of work for a specialist: which kind of specialist, and what to ask it. */
export const CoordinatorTask = z.object({
  kind: z.string().min(1),
  input: z.string().min(1),
  /** Optional label shown in traces and results. */
  id: z.string().optional(),
  /** Time limit of one attempt, in ms, at most 2147483647 (overrides the coordinator's `taskTimeoutMs`). */
  // Node fires a longer timer at once, which would time the attempt out as it starts.
  timeoutMs: z.number().int().positive().max(MAX_TIMEOUT_MS).optional(),
  /** Further attempts after a failure or a timeout, at most 100 (overrides the coordinator's `retries`). */
  retries: z.number().int().nonnegative().max(MAX_RETRIES).optional(),
});
/** One unit of work for a specialist. */
export type CoordinatorTask = z.infer<typeof CoordinatorTask>;

/** What one specialist produced, in task order in the results list. */
export interface TaskResult {
  index: number;
  kind: string;
  input: string;
  /** The specialist run's id: `<parent run>/<kind>[n]`. */
  runId: string;
  /**
   * How the specialist ended: `cancelled` when the failure policy stopped it, `failed` also when it
   * timed out or threw.
   */
  status: 'completed' | 'max-steps' | 'failed' | 'cancelled' | 'waiting' | 'aborted' | 'budget-exceeded';
  outputText: string | null;
  /** The specialist asked for a human (its state had `needsHuman: true`). */
  needsHuman: boolean;
  /** Why it needs a human, or why it failed or was cancelled. */
  reason: string | null;
  path: string[];
  error: SerializedError | null;
  /** The specialist's state keys listed in `exportState`. */
  output: Record<string, unknown>;
  /** How many times it was started (1 + the retries it used). */
  attempts: number;
}

/** What a dispatch did, counted by outcome: the dispatch node's `result.rawResponse`. */
export interface DispatchSummary {
  tasks: number;
  completed: number;
  failed: number;
  cancelled: number;
  /** Ended by their `maxSteps` fuse. */
  maxSteps: number;
  /** The tasks that failed or were cancelled, as `kind[n]: reason`. */
  problems: string[];
}
