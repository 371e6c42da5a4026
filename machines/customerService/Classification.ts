import { z } from 'zod';

/** The routes `classify` can choose. */
export const Route = z.enum(['rag', 'report', 'tool', 'multi', 'human', 'general']);
/** A route `classify` can choose. */
export type Route = z.infer<typeof Route>;

/** One task of a composite request, as `classify` plans it: a specialist's, or `human` for the part a person handles while the others are answered. */
export const PlannedTask = z.object({ kind: z.enum(['rag', 'tool', 'report', 'human']), input: z.string().trim().min(1) });
/** One specialist task of a composite request. */
export type PlannedTask = z.infer<typeof PlannedTask>;

/** What `classify` yields: the route, how sure it is, what it found in the message and, for `multi`, the tasks. */
export const Classification = z.object({
  route: Route,
  confidence: z.number().min(0).max(1),
  orderId: z.string().regex(/^SO\d{8}$/).optional(),
  period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/).optional(),
  faultCode: z.string().regex(/^E\d{2}$/).optional(),
  tasks: z.array(PlannedTask).optional(),
  reason: z.string().optional(),
});
/** What `classify` yields. */
export type Classification = z.infer<typeof Classification>;

/**
 * Below this confidence the request goes to a person whatever the route. The offline classifier's
 * confidence is a calibrated probability over six routes; on cross-validation of the training part,
 * fewer than half of its answers below 0.5 were right, and almost none of those below 0.4, which
 * is where "truly unsure" starts.
 */
export const MIN_CONFIDENCE = 0.4;
