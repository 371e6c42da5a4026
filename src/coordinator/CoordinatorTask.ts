import { z } from 'zod';
import type { SerializedError } from '../errors/SwitchboardError.js';

/** One unit of work for a specialist: which kind of specialist, and what to ask it. */
export const CoordinatorTask = z.object({
  kind: z.string().min(1),
  input: z.string().min(1),
  /** Optional label shown in traces and results. */
  id: z.string().optional(),
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
  status: 'completed' | 'max-steps' | 'failed' | 'cancelled' | 'waiting';
  outputText: string | null;
  /** The specialist asked for a human (its state had `needsHuman: true`). */
  needsHuman: boolean;
  /** Why it needs a human, or why it failed. */
  reason: string | null;
  path: string[];
  error: SerializedError | null;
  /** The specialist's state keys listed in `exportState`. */
  output: Record<string, unknown>;
}
