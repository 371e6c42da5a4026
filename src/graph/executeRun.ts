import { randomUUID } from 'node:crypto';
import { createActor } from 'xstate';
import type { AgentRequest } from './AgentNode.js';
import { directMachine, isGraphModel, specOf, type GraphMachine } from './compileMachine.js';
import { heldSnapshot, holdWaitingRun } from './durable/holdWaitingRun.js';
import { driveActor } from './driveActor.js';
import type { GraphMachineOutput } from './GraphMachineContext.js';
import { checkRunOptions } from './checkRunOptions.js';
import { inspectOption, toRequest, type RunOptions } from './RunOptions.js';
import { RunRuntime } from './RunRuntime.js';
import { createWithRuntime } from './runtimeOf.js';
import { SharedState } from './SharedState.js';
import type { WorkflowEvent } from './WorkflowEvent.js';
import type { WorkflowRun } from './WorkflowRun.js';
import { SwitchboardError, type SerializedError, type SwitchboardErrorCode } from '../errors/SwitchboardError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { exceededError } from '../budget/Budget.js';
import { checkBreakpoints, type Breakpoints } from './Breakpoints.js';

/** Rebuilds an error object from its JSON form when the original is not at hand. */
function reviveError(error: SerializedError): SwitchboardError {
  return new WorkflowExecutionError(error.message, { code: error.code as SwitchboardErrorCode });
}

/** The machine input for a new run. */
export function machineInput(request: AgentRequest, runId: string, options: RunOptions, breakpoints: Required<Breakpoints> | null = null) {
  return {
    request,
    runId,
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    state: options.state ?? {},
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(breakpoints === null ? {} : { breakpoints }),
  };
}

/** A run that ended before any node ran (its signal was already aborted). */
export function cancelledBeforeStart(runId: string, options: RunOptions): GraphMachineOutput {
  return { runId, status: 'cancelled', result: null, outputText: null, path: [], steps: 0, state: { ...options.state }, error: null, waiting: null, budget: null };
}

/**
 * Runs a compiled graph machine in memory until it ends or waits at a human node: creates the
 * actor, wires the runtime (session, events, clock), cancels on abort, and turns the machine's
 * output into a `WorkflowRun`.
 */
export async function executeRun(
  machine: GraphMachine,
  input: string | AgentRequest,
  options: RunOptions,
  streaming: boolean,
  listener?: (event: WorkflowEvent) => void,
): Promise<WorkflowRun> {
  checkRunOptions(options);
  checkBreakpoints(options.breakpoints, specOf(machine), false);
  const request = toRequest(input);
  const runId = options.runId ?? randomUUID();
  const { session, clock, onEvent, recorders } = options;
  const runtime = new RunRuntime({ runId, session, streaming, clock, onEvent, listener, recorders });
  runtime.stepRunner = options.stepRunner ?? null;
  if (options.signal?.aborted) {
    // No actor is made, so the runtime learns the graph's state model here: the run's state is
    // checked by it as the state of a run that ran is.
    runtime.stateModel = specOf(machine).state;
    return finishRun(runtime, cancelledBeforeStart(runId, options));
  }
  const inspect = inspectOption(options.inspect, (thrown) => runtime.callbackFailed('inspect', options.inspect!, thrown));
  // Nothing persists this run while a node is in flight, so its nodes need no child actors; an
  // inspected run keeps them, so the inspector shows each node's actor.
  runtime.direct = options.inspect === undefined && !isGraphModel(machine);
  const logic = runtime.direct ? directMachine(specOf(machine)) : machine;
  const actor = createWithRuntime(runtime, () => createActor(logic, { input: machineInput(request, runId, options), ...inspect }));
  let held: unknown = null;
  const output = await driveActor(actor, { signal: options.signal, onWaiting: (a) => (held = a.getPersistedSnapshot()) });
  if (output.status !== 'waiting') return finishRun(runtime, output);
  // A wait is held in memory so that resumeRun (without a store) can continue it in this process.
  const kept = heldSnapshot(held);
  if (kept instanceof SwitchboardError) {
    const run = finishRun(runtime, { ...output, status: 'failed', error: kept.toJSON(), waiting: null });
    run.error = kept;
    return run;
  }
  const run = finishRun(runtime, output);
  await holdWaitingRun(specOf(machine), run, kept, runtime.seq);
  return run;
}

/** Turns the machine's output into a `WorkflowRun` and reports it as the last event. */
export function finishRun(runtime: RunRuntime, output: GraphMachineOutput): WorkflowRun {
  const run: WorkflowRun = {
    runId: output.runId,
    status: output.status,
    result: output.result,
    outputText: output.outputText,
    path: output.path,
    steps: output.steps,
    // The machine's state (what its settled steps wrote, as a stored run keeps it), in a map of its
    // own: not the live one, which a node still going after a stop could write into after the return.
    state: SharedState.copyOf(output.state, runtime.context?.state.model ?? runtime.stateModel ?? undefined),
  };
  if (output.status === 'failed') {
    run.error = runtime.error ?? reviveError(output.error ?? { name: 'Error', code: 'internal', message: 'run failed' });
  }
  if (output.waiting !== null) {
    const { nodeId, reason, specialist, breakpoint, queued } = output.waiting;
    run.waiting = specialist === undefined ? { nodeId, reason } : { nodeId, reason, specialist };
    if (breakpoint !== undefined) run.waiting.breakpoint = breakpoint;
    if (queued !== undefined) run.waiting.queued = queued;
  }
  if (output.budget !== null) {
    const { tokens, costUsd, elapsedMs, models, exceeded, nestedSteps } = output.budget;
    // Each executed leaf step counts once: the run's own steps, and those its sub-workflows ran.
    run.spent = { tokens, costUsd, iterations: output.steps + (nestedSteps ?? 0), durationMs: elapsedMs, models };
    if (exceeded !== null) run.budgetExceeded = exceeded;
    if (exceeded !== null && output.status === 'budget-exceeded') run.error = exceededError(exceeded);
  }
  if (runtime.callbackErrors.length > 0) run.callbackErrors = [...runtime.callbackErrors];
  // run.completed is the last event: a listener failing on it is kept, not reported as another event.
  runtime.close();
  runtime.emit(run.runId, { type: 'run.completed', run });
  if (runtime.callbackErrors.length > (run.callbackErrors?.length ?? 0)) run.callbackErrors = [...runtime.callbackErrors];
  return run;
}
