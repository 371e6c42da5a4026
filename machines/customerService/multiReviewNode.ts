import type { AgentNode, TaskResult } from 'switchboard/engine';
import { requestHandoff } from '../../specialists/index.js';

/**
 * `multi_review`: looks at every specialist's result (all of them have settled: the coordinator's
 * join waits for each). A specialist that asked for a person, or failed, sends the run to
 * `human_handoff` with its reason; otherwise the results go on to `draft`.
 */
export function multiReviewNode(): AgentNode {
  return {
    name: 'multi_review',
    execute(ctx) {
      const results = ctx.get<TaskResult[]>('specialistResults') ?? [];
      const needsHuman = results.find((r) => r.needsHuman);
      const failed = results.find((r) => r.status !== 'completed' || r.outputText === null);
      if (results.length === 0) requestHandoff(ctx, 'the request could not be split into specialist tasks', 'multi_review');
      else if (needsHuman) requestHandoff(ctx, `${needsHuman.kind} specialist: ${needsHuman.reason ?? 'needs a person'}`, 'multi_review');
      else if (failed) requestHandoff(ctx, `${failed.kind} specialist ${failed.status}: ${failed.reason ?? 'no answer'}`, 'multi_review');
      ctx.put('multiReview', { tasks: results.length, ok: !needsHuman && !failed && results.length > 0 });
      return null;
    },
  };
}
