import { randomUUID } from 'node:crypto';
import { createActor } from 'xstate';
import type { AgentRequest } from './AgentNode.js';
import type { GraphMachine } from './compileMachine.js';
import type { GraphMachineOutput } from './GraphMachineContext.js';
import { checkMaxSteps, toRequest, type RunOptions } from './RunOptions.js';
import { attachRuntime, RunRuntime } from './RunRuntime.js';
import { SharedState } from './SharedState.js';
import type { WorkflowRun } from './WorkflowRun.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { SwitchboardError, describeThrown, type SerializedError, type SwitchboardErrorCode } from '../errors/SwitchboardError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';

/** Checks run options that are easy to get wrong, before anything runs. */
function checkOptions(options: RunOptions): void {
  if (options.maxSteps !== undefined) checkMaxSteps(options.maxSteps, 'RunOptions');
  if (options.runId !== undefined && (typeof options.runId !== 'string' || options.runId.trim() === '')) {
    throw new GraphDefinitionError('RunOptions.runId must be a non-empty string; omit it to get a generated id');
  }
  if (options.state !== undefined && (options.state === null || typeof options.state !== 'object' || options.state instanceof Map)) {
    throw new GraphDefinitionError('RunOptions.state must be a plain object of JSON values (not a Map); it seeds the shared state');
  }
}

/** Rebuilds an error object from its JSON form when the original is not at hand. */
function reviveError(error: SerializedError): SwitchboardError {
  return new WorkflowExecutionError(error.message, { code: error.code as SwitchboardErrorCode });
}

/**
 * Runs a compiled graph machine to its end: creates the actor, wires the runtime (session, events,
 * clock), cancels on abort, and turns the machine's output into a `WorkflowRun`.
 */
export async function executeRun(
  machine: GraphMachine,
  input: string | AgentRequest,
  options: RunOptions,
  streaming: boolean,
): Promise<WorkflowRun> {
  const request = toRequest(input);
  checkOptions(options);
  const runId = options.runId ?? randomUUID();
  const runtime = new RunRuntime({ session: options.session, streaming, clock: options.clock, onEvent: options.onEvent });
  const signal = options.signal;
  if (signal?.aborted) {
    // Nothing has run yet: end as cancelled without starting the first node.
    return finish(runtime, { runId, status: 'cancelled', result: null, outputText: null, path: [], steps: 0, state: { ...options.state }, error: null });
  }
  const actor = createActor(machine, {
    input: { request, runId, ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }), state: options.state ?? {} },
  });
  attachRuntime(actor, runtime);

  const output = await new Promise<GraphMachineOutput>((resolve, reject) => {
    const cancel = () => actor.send({ type: 'workflow.cancel' });
    const done = () => signal?.removeEventListener('abort', cancel);
    actor.subscribe({
      complete: () => {
        done();
        resolve(actor.getSnapshot().output!);
      },
      error: (error) => {
        done();
        reject(
          error instanceof SwitchboardError
            ? error
            : new WorkflowExecutionError(`run ${runId} stopped on an internal error: ${describeThrown(error)}`, {
                code: 'internal',
                cause: error,
              }),
        );
      },
    });
    signal?.addEventListener('abort', cancel, { once: true });
    actor.start();
  });
  return finish(runtime, output);
}

/** Turns the machine's output into a `WorkflowRun` and reports it as the last event. */
function finish(runtime: RunRuntime, output: GraphMachineOutput): WorkflowRun {
  const run: WorkflowRun = {
    runId: output.runId,
    status: output.status,
    result: output.result,
    outputText: output.outputText,
    path: output.path,
    steps: output.steps,
    state: runtime.context?.state ?? SharedState.fromObject(output.state),
  };
  if (output.status === 'failed') {
    run.error = runtime.error ?? reviveError(output.error ?? { name: 'Error', code: 'internal', message: 'run failed' });
  }
  runtime.emit(run.runId, { type: 'run.completed', run });
  return run;
}
