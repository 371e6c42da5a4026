import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import type { AgentContext } from './AgentContext.js';
import type { Gate, GateOutcome } from './Gate.js';
import { convene, type Jury } from './jury.js';
import type { GateDecision } from './JudgeVerdict.js';

function checkScore(value: number, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new GraphDefinitionError(`${what} must be a number in [0, 1]; received ${String(value)}`);
  }
  return value;
}

/** Decides from a jury's score with tiers: ≥ high PASS, ≥ low ESCALATE, below FAIL; no score at all ESCALATE. */
async function judgeWith<O>(jury: Jury<O>, ctx: AgentContext, output: O, tier: (score: number) => GateDecision): Promise<GateOutcome> {
  const finding = await convene(jury, ctx, output);
  if (finding.score === null) {
    return { decision: 'ESCALATE', verdict: { decision: 'ESCALATE', score: null, reasons: [...finding.reasons, 'no judge gave a score'] } };
  }
  const decision = tier(finding.score);
  return { decision, verdict: { decision, score: finding.score, reasons: finding.reasons } };
}

/**
 * A gate that passes when the jury's mean score reaches `threshold`, fails below it, and
 * escalates when no judge gave a score.
 *
 * @example
 * .gate(new JudgeGate([clarity, llmJudge(model, 'Is it polite?')], 0.7)).onFail(revise).end()
 */
export class JudgeGate<O = unknown> implements Gate<O> {
  readonly name = 'judge-gate';
  readonly threshold: number;

  constructor(
    readonly jury: Jury<O>,
    threshold: number,
  ) {
    this.threshold = checkScore(threshold, 'JudgeGate threshold');
  }

  evaluate(ctx: AgentContext, output: O): Promise<GateOutcome> {
    return judgeWith(this.jury, ctx, output, (score) => (score >= this.threshold ? 'PASS' : 'FAIL'));
  }
}

/** A gate with two thresholds: ≥ `high` PASS, ≥ `low` ESCALATE, below FAIL (no score at all: ESCALATE). */
export class TieredGate<O = unknown> implements Gate<O> {
  readonly name = 'tiered-gate';
  readonly high: number;
  readonly low: number;

  constructor(
    readonly jury: Jury<O>,
    high: number,
    low: number,
  ) {
    this.high = checkScore(high, 'TieredGate high');
    this.low = checkScore(low, 'TieredGate low');
    if (this.low > this.high) throw new GraphDefinitionError(`TieredGate: low (${low}) must not be above high (${high})`);
  }

  evaluate(ctx: AgentContext, output: O): Promise<GateOutcome> {
    return judgeWith(this.jury, ctx, output, (score) => (score >= this.high ? 'PASS' : score >= this.low ? 'ESCALATE' : 'FAIL'));
  }
}
