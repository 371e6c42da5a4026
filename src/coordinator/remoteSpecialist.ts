import { fromPromise, type AnyActorRef } from 'xstate';
import type { GraphMachine } from '../graph/compileMachine.js';
import type { GraphMachineOutput } from '../graph/GraphMachineContext.js';
import type { RunRuntime } from '../graph/RunRuntime.js';
import { runtimeOf } from '../graph/runtimeOf.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import type { SpecialistRuns, SpecialistTask } from '../graph/SpecialistRuns.js';

/**
 * The join's child for a task whose specialist runs elsewhere (a stored run, a child job): it makes
 * sure the run exists and resolves with its output once it ended. While it has not, it tells the
 * join (`join.queued`) and stays pending: the coordinator's run then waits and this actor is stopped
 * with it. Persisted, it is only its input; restored in the next leg, it looks again.
 */
export function remoteSpecialist(machines: Readonly<Record<string, unknown>>) {
  return fromPromise<GraphMachineOutput, SpecialistTask>(async ({ input, self, signal }) => {
    const join = self._parent as AnyActorRef;
    // The join's parent is the coordinator run's machine: its runtime says where specialists run.
    const runtime = runtimeOf(join._parent!);
    const runs = runtime.specialistRuns;
    if (runs === null) {
      throw new WorkflowExecutionError(
        `specialist run ${input.runId} was dispatched to the run queue, but this process has no queue; continue run ${input.parentRunId} with a worker (\`switchboard worker\`)`,
        { code: 'internal', nodeId: input.nodeId },
      );
    }
    // A cancelled run's leg waits for this too: the run it creates is cancelled before the leg ends
    // (that cancel is tracked before this promise settles, so the leg's wait covers both).
    const settling = runs.settle(input, machines[input.kind] as GraphMachine).then((outcome) => {
      if (!outcome.ended) cancelWithRun(runtime, runs, input.runId);
      return outcome;
    });
    runtime.cancelling.add(settling);
    const outcome = await settling.finally(() => runtime.cancelling.delete(settling));
    if (outcome.ended) return outcome.output;
    // Stopped while it settled (its run was cancelled): the join is gone, nobody to tell.
    if (!signal.aborted) join.send({ type: 'join.queued', index: input.index, attempt: input.attempt });
    // Never settles in this leg: the run waits for its specialists and stops this actor.
    return new Promise<GraphMachineOutput>(() => {});
  });
}

/**
 * Cancels the task's specialist run (through `cancelRun`) when its coordinator run is cancelled, now
 * or later in this leg: the coordinator's own cancel lists only the runs its stored wait names, and a
 * dispatch cancelled while still creating them has stored none. Left alone, such a run would go on
 * for nobody and, reaching a human node, wait for ever. A run taken over or stopped by a failed
 * write keeps its specialist runs: another leg continues it.
 */
function cancelWithRun(runtime: RunRuntime, runs: SpecialistRuns, runId: string): void {
  const signal = runtime.cancellation;
  if (signal === null) return;
  const cancel = () => {
    // Ended already or gone is fine; a cancel that fails leaves the run to advanceRun's check of its coordinator.
    const cancelling = runs.cancel(runId).catch(() => undefined);
    runtime.cancelling.add(cancelling);
    void cancelling.finally(() => runtime.cancelling.delete(cancelling));
  };
  if (signal.aborted) cancel();
  else signal.addEventListener('abort', cancel, { once: true });
}
