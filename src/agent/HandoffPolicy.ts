import { z } from 'zod';

/** What a handoff does when the policy denies it or every attempt fails. */
export type HandoffFailureAction = 'fail' | 'fallback';

/** The rules of a subagent handoff (ai4j's `HandoffPolicy`). */
export const HandoffPolicy = z
  .object({
    /** The deepest handoff allowed: 1 means an agent may hand off to a subagent, which may not hand off further. */
    maxDepth: z.number().int().min(1, 'maxDepth must be at least 1').default(1),
    /** Attempts after the first failed one (each with a fresh session unless `session: 'shared'`). */
    maxRetries: z.number().int().min(0, 'maxRetries must be 0 or more').max(10).default(0),
    /** Time limit of one attempt in milliseconds; 0 turns it off. */
    timeoutMs: z.number().int().min(0, 'timeoutMs must be 0 (off) or a positive number of milliseconds').default(0),
    /** Subagent tool names that may be called; empty or absent allows all. */
    allowedTools: z.array(z.string()).optional(),
    /** Subagent tool names that may not be called. */
    deniedTools: z.array(z.string()).optional(),
    /** On denial: fail the tool call (the model sees `{ ok: false }`) or answer with the fallback. */
    onDenied: z.enum(['fail', 'fallback']).default('fail'),
    /** When every attempt failed or timed out: fail the tool call or answer with the fallback. */
    onError: z.enum(['fail', 'fallback']).default('fail'),
  })
  .strict();
/** The rules of a subagent handoff, with defaults applied. */
export type HandoffPolicy = z.output<typeof HandoffPolicy>;
/** The rules of a subagent handoff as given (every field optional). */
export type HandoffPolicyOptions = z.input<typeof HandoffPolicy>;
