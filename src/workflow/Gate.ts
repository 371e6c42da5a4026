import type { AgentContext } from './AgentContext.js';
import type { GateDecision, JudgeVerdict } from './JudgeVerdict.js';

/** What a gate may answer: a decision, or a decision with the verdict behind it (written to `JUDGE_VERDICT`). */
export type GateOutcome = GateDecision | { decision: GateDecision; verdict?: JudgeVerdict };

/**
 * Judges a step's output: `PASS`, `FAIL`, `ESCALATE` or `TIMEOUT`. `updateContext` (optional)
 * writes what the gate learned into the context after it decides.
 */
export interface Gate<O = unknown> {
  readonly name?: string;
  evaluate(ctx: AgentContext, output: O): GateOutcome | Promise<GateOutcome>;
  updateContext?(ctx: AgentContext, decision: GateDecision): AgentContext;
  /** For a gate that asks a person (`HumanGate`): the run waits for the reply, at most this long. */
  readonly waitsForPerson?: { timeoutMs: number | null; now: () => number };
}
