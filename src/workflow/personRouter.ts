import { z } from 'zod';
import type { StateRouter } from '../graph/AgentNode.js';
import { AgentContext } from './AgentContext.js';
import type { NodeRuntime } from './compileWorkflow.js';
import type { JudgeVerdict } from './JudgeVerdict.js';

/** Where a person's gate decision is written. */
export const PERSON_REPLY_KEY = 'workflow.personReply';

/** The deadline (epoch ms) of a person's wait at a gate, stored with the run. */
export const deadlineKey = (gate: string): string => `workflow.gate:${gate}:deadline`;

/** What a person answers at a gate: the decision and, optionally, why. */
export const PersonReply = z.object({ decision: z.enum(['PASS', 'FAIL', 'TIMEOUT']), text: z.string().optional() }).strict();
/** What a person answers at a gate. */
export type PersonReply = z.infer<typeof PersonReply>;

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
