import type { GraphMachine } from '../graph/compileMachine.js';
import type { RunOptions } from '../graph/RunOptions.js';
import { startRun } from '../graph/startRun.js';
import { streamRun } from '../graph/streamRun.js';
import type { WorkflowEvent } from '../graph/WorkflowEvent.js';
import type { RunStatus, WorkflowRun } from '../graph/WorkflowRun.js';
import type { SwitchboardError } from '../errors/SwitchboardError.js';
import { AgentContext } from './AgentContext.js';
import { contextFromState } from './executeStep.js';
import { toMachineInput } from './workflowMachine.js';
import type { CompiledWorkflow } from './compileWorkflow.js';
import { watchDeadline, type DeadlineOptions } from './watchDeadline.js';

/** Run options of a workflow: a graph's (`store`, `signal`, `recorders`, `inspect`, …) plus its initial context and loop fuse. */
export interface WorkflowRunOptions extends Omit<RunOptions, 'state'> {
  /** The context the run starts with. */
  context?: AgentContext | Record<string, unknown>;
  /**
   * The fuse: at most this many loop passes per run (default 100); spent, the run ends `max-steps`.
   * It counts the passes of loops that end on a condition (`repeatUntil`, `repeatUntilOutput`,
   * `loop().until`, supervisor rounds); a `loop().times(n)` loop's passes are bounded by `n` and not counted.
   */
  maxIterations?: number;
}

/** How a workflow run ended: a graph run's statuses, `aborted` included (a step threw `WorkflowAbort`). */
export type WorkflowStatus = RunStatus;

/** The outcome of a workflow run. */
export interface WorkflowResult<O = unknown> {
  runId: string;
  status: WorkflowStatus;
  /** The last step's output (for `aborted`, the value given to `WorkflowAbort`). */
  output: O;
  /** The context at the end. */
  context: AgentContext;
  /** Step names in execution order. */
  path: string[];
  /** Node executions, structural nodes included. */
  steps: number;
  error?: SwitchboardError;
  /** Set while the run waits for a person. */
  waiting?: WorkflowRun['waiting'];
  /** Set when a budget was spent (status `budget-exceeded`): which one, its limit and what was spent. */
  budgetExceeded?: WorkflowRun['budgetExceeded'];
  /** Set for a run with a budget: what it spent. */
  spent?: WorkflowRun['spent'];
}

/** A workflow's input and run options as the engine's request and run options. */
export function engineOptions(name: string, input: unknown, options: WorkflowRunOptions): { request: { input: unknown }; options: RunOptions } {
  const { context, maxIterations, ...rest } = options;
  const made = toMachineInput({ input, context: AgentContext.from(context ?? null).toJSON(), ...(rest.runId === undefined ? {} : { runId: rest.runId }), ...(maxIterations === undefined ? {} : { maxIterations }) }, name);
  return { request: made.request as { input: unknown }, options: { ...rest, runId: made.runId!, state: made.state ?? {} } };
}

/** A graph run of a workflow's machine as the workflow's result. */
export function toWorkflowResult<O>(run: WorkflowRun): WorkflowResult<O> {
  const result: WorkflowResult<O> = {
    runId: run.runId,
    status: run.status,
    output: (run.result?.handoff ?? null) as O,
    context: contextFromState(run.state),
    // The engine's run already names steps (see workflowMachine's io.path).
    path: run.path,
    steps: run.steps,
  };
  if (run.error !== undefined) result.error = run.error;
  if (run.waiting !== undefined) result.waiting = run.waiting;
  if (run.budgetExceeded !== undefined) result.budgetExceeded = run.budgetExceeded;
  if (run.spent !== undefined) result.spent = run.spent;
  return result;
}

/** What a wait's deadline timer resumes the run with: the leg's store, lease and listeners. */
export function deadlineOptions(options: Omit<RunOptions, 'state'>): DeadlineOptions {
  const { store, owner, leaseMs, onEvent, recorders, session, streaming } = options as Omit<RunOptions, 'state'> & DeadlineOptions;
  const picked: DeadlineOptions = {};
  if (store !== undefined) picked.store = store;
  if (owner !== undefined) picked.owner = owner;
  if (leaseMs !== undefined) picked.leaseMs = leaseMs;
  if (onEvent !== undefined) picked.onEvent = onEvent;
  if (recorders !== undefined) picked.recorders = recorders;
  if (session !== undefined) picked.session = session;
  if (streaming !== undefined) picked.streaming = streaming;
  return picked;
}

/**
 * Runs a workflow's machine on the engine's run runtime (in memory, or stored with `options.store`);
 * a run left waiting at a HumanGate with a deadline has it watched (see `watchDeadline`).
 */
export async function runWorkflow(compiled: CompiledWorkflow, machine: GraphMachine, input: unknown, options: WorkflowRunOptions): Promise<WorkflowResult> {
  const { request, options: engine } = engineOptions(compiled.graph.name, input, options);
  const run = await startRun(machine, request, engine, false);
  if (run.status === 'waiting') void watchDeadline(compiled, machine, run.runId, deadlineOptions(options)).catch(() => undefined);
  return toWorkflowResult(run);
}

/**
 * Streams a workflow's run: the engine's events; the last one is `run.completed`. A run left
 * waiting at a HumanGate with a deadline has it watched, as after `run()`.
 */
export function streamWorkflow(compiled: CompiledWorkflow, machine: GraphMachine, input: unknown, options: WorkflowRunOptions): AsyncIterable<WorkflowEvent> {
  const { request, options: engine } = engineOptions(compiled.graph.name, input, options);
  return streamRun(async (i, o, l) => {
    const run = await startRun(machine, i, o, true, l);
    if (run.status === 'waiting') void watchDeadline(compiled, machine, run.runId, deadlineOptions(options)).catch(() => undefined);
    return run;
  }, request, engine);
}
