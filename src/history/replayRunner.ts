import type { AgentResult } from '../graph/AgentNode.js';
import type { StateDelta } from '../graph/SharedState.js';
import type { StepCall, StepRunner } from '../steps/StepRunner.js';
import { RunStateError } from '../errors/RunStateError.js';
import type { HistoryStep } from './readRunHistory.js';

/**
 * The step runner of a fork: the fork's steps 1…`steps.length` are not executed but replayed from
 * the parent's log (its result and state writes, as if the node had made them), and `edit` is
 * written after the last of them; later steps, and every step of another run, execute as usual
 * (through `next`, when given: a checkpointing runner of a retried fork, say).
 * A fork whose routing chose another node than the parent did at a replayed step fails with
 * `fork_unsupported` (a router that is not a function of the state and the result).
 */
export function replayRunner(runId: string, parentRunId: string, steps: readonly HistoryStep[], edit: StateDelta | null, next: StepRunner | null = null): StepRunner {
  return {
    name: 'fork-replay',
    async run(call: StepCall, execute: () => Promise<AgentResult | null>): Promise<AgentResult | null> {
      if (call.runId !== runId || call.step > steps.length) return next === null ? execute() : next.run(call, execute);
      const recorded = steps[call.step - 1]!;
      if (recorded.nodeId !== call.nodeId) {
        throw new RunStateError(
          `fork ${runId} of run ${parentRunId} went to node "${call.nodeId}" at step ${call.step} where the parent ran "${recorded.nodeId}"; ` +
            'its routing depends on something other than the state and the results, so it cannot be replayed: fork at an earlier step',
          { code: 'fork_unsupported', runId },
        );
      }
      call.replay(recorded.delta);
      if (call.step === steps.length && edit !== null) call.replay(edit);
      return recorded.result;
    },
  };
}
