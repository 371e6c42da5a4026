import { z } from 'zod';

/** What a gate decides about a step's output. */
export const GateDecision = z.enum(['PASS', 'FAIL', 'ESCALATE', 'TIMEOUT']);
/** What a gate decides about a step's output. */
export type GateDecision = z.infer<typeof GateDecision>;

/**
 * A gate's verdict as it is written to `AgentContext.JUDGE_VERDICT`: the decision, the jury's
 * score (the mean of the judges that answered; null when none did) and the reasons given.
 */
export const JudgeVerdict = z.object({
  decision: GateDecision,
  score: z.number().nullable(),
  reasons: z.array(z.string()),
});
/** A gate's verdict: decision, score and reasons. */
export type JudgeVerdict = z.infer<typeof JudgeVerdict>;
