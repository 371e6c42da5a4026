import { z } from 'zod';
import type { StateRouter } from '../graph/AgentNode.js';
import { AgentContext } from './AgentContext.js';
import type { NodeRuntime } from './compileWorkflow.js';
import type { JudgeVerdict } from './JudgeVerdict.js';

/** Where a person's gate decision is written. */
export const PERSON_REPLY_KEY = 'workflow.personReply';

/** The deadline (epoch ms) of a person's wait at a gate, stored with the run. */
export const deadlineKey = (gate: string): string => `workflow.gate:${gate}:deadline`;

const PersonDecision = z.object({ decision: z.enum(['PASS', 'FAIL', 'TIMEOUT']), text: z.string().optional() }).strict();

/** The same as text (what `switchboard resume --reply` and the workbench's reply box send): `PASS`, or `FAIL: too long`. */
const PersonDecisionText = z.string().transform((text, ctx): z.infer<typeof PersonDecision> => {
  const found = /^\s*(PASS|FAIL|TIMEOUT)\b\s*[:\-–—]?\s*([\s\S]*)$/i.exec(text);
  if (found === null) {
    ctx.addIssue({ code: 'custom', message: `a gate takes PASS, FAIL or TIMEOUT, optionally followed by ": why" (received ${JSON.stringify(text.slice(0, 40))})` });
    return z.NEVER;
  }
  const decision = found[1]!.toUpperCase() as 'PASS' | 'FAIL' | 'TIMEOUT';
  const why = found[2]!.trim();
  return why === '' ? { decision } : { decision, text: why };
});

/**
 * What a person answers at a gate: `{ decision: 'PASS' | 'FAIL' | 'TIMEOUT', text? }`, or the same
 * as text (`PASS`, `fail: too long`), which is parsed into that object.
 */
export const PersonReply = z.union([PersonDecision, PersonDecisionText], {
  error: 'a gate takes PASS, FAIL or TIMEOUT, optionally followed by ": why" (as JSON: { decision, text? })',
});
/** What a person answers at a gate: the decision and, optionally, why. */
export type PersonReply = z.infer<typeof PersonDecision>;

/**
 * Routes a person's reply: their decision, written to `JUDGE_VERDICT` with their text as the
 * reason — or TIMEOUT when the reply comes after the stored deadline (whatever it says), so a run
 * resumed after a restart past its deadline takes `onTimeout`.
 */
export function personRouter(rt: Extract<NodeRuntime, { type: 'person' }>, now: (() => number) | null): StateRouter {
  return (ctx) => {
    const reply = ctx.get<PersonReply>(PERSON_REPLY_KEY);
    const deadline = ctx.get<number>(deadlineKey(rt.gate));
    const late = now !== null && typeof deadline === 'number' && now() > deadline;
    const decision = late ? 'TIMEOUT' : (reply?.decision ?? 'FAIL');
    const verdict: JudgeVerdict = { decision, score: null, reasons: late ? [`no decision before the deadline (${new Date(deadline).toISOString()})`] : reply?.text === undefined ? [] : [reply.text] };
    ctx.put(AgentContext.JUDGE_VERDICT.name, verdict);
    // FAIL takes the person's default edge (the workflow goes on with the verdict recorded).
    return decision === 'FAIL' ? null : decision;
  };
}
