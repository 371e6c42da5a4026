import type { AgentNode, TaskResult } from 'switchboard/engine';
import { requestHandoff } from '../../specialists/shared/Handoff.js';
import { PERSON_PART_KEY, type PersonPart } from './PersonPart.js';

/**
 * `multi_review`: looks at every specialist's result (all of them have settled: the coordinator's
 * join waits for each). When none answered, the run goes to `human_handoff` with the reason of the
 * first that asked for a person or failed. When some answered, their answers go on to `draft`, and
 * the tasks that asked for a person or failed are stored under `personPart`: the customer gets the
 * answered part, and the run then waits for a person for the rest.
 */
export function multiReviewNode(): AgentNode {
  return {
    name: 'multi_review',
    execute(ctx) {
      const results = ctx.get<TaskResult[]>('specialistResults') ?? [];
      const answered = (r: TaskResult) => !r.needsHuman && r.status === 'completed' && r.outputText !== null;
      const rest = results.filter((r) => !answered(r));
      const needsHuman = rest.find((r) => r.needsHuman);
      const failed = rest.find((r) => !r.needsHuman);
      if (results.length === 0) requestHandoff(ctx, 'the request could not be split into specialist tasks', 'multi_review');
      else if (rest.length === results.length && needsHuman) requestHandoff(ctx, `${needsHuman.kind} specialist: ${needsHuman.reason ?? 'needs a person'}`, 'multi_review');
      else if (rest.length === results.length && failed) requestHandoff(ctx, `${failed.kind} specialist ${failed.status}: ${failed.reason ?? 'no answer'}`, 'multi_review');
      else if (rest.length > 0) {
        const part: PersonPart = rest.map((r) => ({ kind: r.kind, input: r.input, reason: r.needsHuman ? (r.reason ?? 'needs a person') : `${r.status}: ${r.reason ?? 'no answer'}` }));
        ctx.put(PERSON_PART_KEY, part);
      }
      ctx.put('multiReview', { tasks: results.length, ok: rest.length === 0 && results.length > 0, toPerson: rest.length });
      return null;
    },
  };
}
