import { describeThrown } from '../errors/SwitchboardError.js';
import type { AgentContext } from './AgentContext.js';

/** A judge's answer: a score in [0, 1] and, optionally, why. */
export interface JudgeScore {
  score: number;
  reasons?: string[];
}

/** Scores an output. One that throws, or answers without a finite number, is inconclusive. */
export type Judge<O = unknown> = (ctx: AgentContext, output: O) => JudgeScore | Promise<JudgeScore>;

/** One judge or several. */
export type Jury<O = unknown> = Judge<O> | readonly Judge<O>[];

/** What a jury found: the mean score of the judges that answered (null when none did) and every reason. */
export interface JuryFinding {
  score: number | null;
  reasons: string[];
  answered: number;
  inconclusive: number;
}

/**
 * Asks every judge at once. The score is the mean of the judges that answered with a finite
 * number; a judge that throws or answers without one is inconclusive and its reason says why.
 * When no judge answered the score is null — never a made-up 0.
 */
export async function convene<O>(jury: Jury<O>, ctx: AgentContext, output: O): Promise<JuryFinding> {
  const judges = typeof jury === 'function' ? [jury] : [...jury];
  const settled = await Promise.allSettled(judges.map(async (judge) => judge(ctx, output)));
  const scores: number[] = [];
  const reasons: string[] = [];
  settled.forEach((outcome, i) => {
    if (outcome.status === 'rejected') {
      reasons.push(`judge ${i + 1} was inconclusive: ${describeThrown(outcome.reason)}`);
      return;
    }
    const answer = outcome.value as Partial<JudgeScore> | null | undefined;
    const score = answer?.score;
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      reasons.push(`judge ${i + 1} was inconclusive: it gave no score`);
      return;
    }
    scores.push(Math.min(1, Math.max(0, score)));
    if (Array.isArray(answer?.reasons)) reasons.push(...answer.reasons.filter((r): r is string => typeof r === 'string'));
  });
  const score = scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length;
  return { score, reasons, answered: scores.length, inconclusive: judges.length - scores.length };
}
