import { fromPromise, type AnyActorRef } from 'xstate';
import type { GraphMachine } from '../graph/compileMachine.js';
import type { GraphMachineOutput } from '../graph/GraphMachineContext.js';
import { runtimeOf } from '../graph/RunRuntime.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import type { SpecialistTask } from '../graph/SpecialistRuns.js';

/**
 * The join's child for a task whose specialist runs elsewhere (a stored run, a child job): it makes
 * sure the run exists and resolves with its output once it ended. While it has not, it tells the
 * join (`join.queued`) and stays pending: the coordinator's run then waits and this actor is stopped
 * with it. Persisted, it is only its input; restored in the next leg, it looks again.
 */
export function remoteSpecialist(machines: Readonly<Record<string, unknown>>) {
  return fromPromise<GraphMachineOutput, SpecialistTask>(async ({ input, self }) => {
    const join = self._parent as AnyActorRef;
    // The join's parent is the coordinator run's machine: its runtime says where specialists run.
    const runs = runtimeOf(join._parent!).specialistRuns;
    if (runs === null) {
      throw new WorkflowExecutionError(
        `specialist run ${input.runId} was dispatched to the run queue, but this process has no queue; continue run ${input.parentRunId} with a worker (\`switchboard worker\`)`,
        { code: 'internal', nodeId: input.nodeId },
      );
    }
    const outcome = await runs.settle(input, machines[input.kind] as GraphMachine);
    if (outcome.ended) return outcome.output;
    join.send({ type: 'join.queued', index: input.index, attempt: input.attempt });
    // Never settles in this leg: the run waits for its specialists and stops this actor.
    return new Promise<GraphMachineOutput>(() => {});
  });
}
