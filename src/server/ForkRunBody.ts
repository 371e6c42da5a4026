import { z } from 'zod';
import { wholeNumber } from '../input/wholeNumber.js';

/**
 * `POST /api/runs/:runId/fork`: the step to fork at and, optionally, the whole shared state to go
 * on with (checked against the graph's state: `state_invalid` / `state_undeclared` name the key).
 */
export const ForkRunBody = z.strictObject({
  at: wholeNumber(0, 1_000_000_000, 'at (the step to fork at)'),
  state: z.record(z.string(), z.unknown()).optional(),
});
/** `POST /api/runs/:runId/fork`. */
export type ForkRunBody = z.infer<typeof ForkRunBody>;
