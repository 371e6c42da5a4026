import type { Actor } from 'xstate';
import type { GraphMachine } from './compileMachine.js';
import type { GraphMachineContext, GraphMachineOutput } from './GraphMachineContext.js';
import { readPath } from './PathLog.js';
import { SwitchboardError, describeThrown } from '../errors/SwitchboardError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';

/** Options for {@link driveActor}. */
export interface DriveOptions {
  /** Aborting sends the cancel event. */
  signal?: AbortSignal;
  /** Called with every new snapshot (after each macrostep), before the run settles. */
  onSnapshot?: (actor: Actor<GraphMachine>) => void;
  /**
   * A restored run that waited: ignore the wait it was restored in (the reply is sent after start).
   * A later wait, even at the same step (a coordinator's specialist that waits again), settles.
   */
  ignoreRestoredWait?: boolean;
  /** Called when the run waits, before the actor stops (take its persisted snapshot here). */
  onWaiting?: (actor: Actor<GraphMachine>) => void;
}

/** The JSON output of a run that stopped at a human node. */
export function waitingOutput(context: GraphMachineContext): GraphMachineOutput {
  return {
    runId: context.runId,
    status: 'waiting',
    result: context.result,
    outputText: context.result?.outputText ?? null,
    path: readPath(context.path),
    steps: context.steps,
    state: context.state,
    error: null,
    waiting: context.waiting,
  };
}

/**
 * Starts and follows a graph actor until it reaches a final state or waits at a human
 * node; resolves with the machine's output (status `waiting` for the latter, the actor then stopped).
 */
export function driveActor(actor: Actor<GraphMachine>, options: DriveOptions = {}): Promise<GraphMachineOutput> {
  const { signal } = options;
  return new Promise<GraphMachineOutput>((resolve, reject) => {
    let settled = false;
    const cancel = () => actor.send({ type: 'workflow.cancel' });
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', cancel);
      subscription.unsubscribe();
      fn();
    };
    // Each wait is a new `waiting` object in the context; the restored one is recognized by identity.
    const restoredWait = options.ignoreRestoredWait === true ? actor.getSnapshot().context.waiting : null;
    const subscription = actor.subscribe({
      next: (snapshot) => {
        if (settled) return;
        options.onSnapshot?.(actor);
        const context = snapshot.context;
        const waitingHere = context.status === 'waiting' && snapshot.status === 'active';
        if (waitingHere && (restoredWait === null || context.waiting !== restoredWait)) {
          settle(() => {
            options.onWaiting?.(actor);
            actor.stop();
            resolve(waitingOutput(context));
          });
        }
      },
      complete: () => settle(() => resolve(actor.getSnapshot().output!)),
      error: (error) =>
        settle(() =>
          reject(
            error instanceof SwitchboardError
              ? error
              : new WorkflowExecutionError(`run stopped on an internal error: ${describeThrown(error)}`, { code: 'internal', cause: error }),
          ),
        ),
    });
    signal?.addEventListener('abort', cancel, { once: true });
    actor.start();
    if (signal?.aborted) cancel();
  });
}
