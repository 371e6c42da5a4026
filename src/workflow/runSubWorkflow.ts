import { createActor } from 'xstate';
import { SwitchboardError } from '../errors/SwitchboardError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import type { GraphMachine } from '../graph/compileMachine.js';
import { heldSnapshot } from '../graph/durable/holdWaitingRun.js';
import { driveActor } from '../graph/driveActor.js';
import type { GraphMachineContext } from '../graph/GraphMachineContext.js';
import { createWithRuntime, runtimeOf } from '../graph/runtimeOf.js';
import { budgetRefusal } from '../errors/BudgetError.js';
import { exceededError } from '../budget/Budget.js';
import type { BudgetMeter } from '../budget/BudgetMeter.js';
import type { WorkflowGraph } from './WorkflowGraph.js';
import { AgentContext } from './AgentContext.js';
import { WorkflowAbort } from './WorkflowAbort.js';
import { subWorkflowTrace, type StepScope } from './WorkflowLane.js';
import type { WorkflowMachineInput, WorkflowMachineOutput } from './workflowMachine.js';

/** The method a built workflow runs itself by as a step of another (its output and final context). */
export const RUN_CHILD = Symbol.for('switchboard.runChild');
/** The method that says whether a built workflow can wait for a person (so its parent step can). */
export const CAN_WAIT = Symbol.for('switchboard.canWait');

/** What a sub-workflow hands back to its parent: its output and its final context. */
export interface SubWorkflowOutcome {
  output: unknown;
  context: Record<string, unknown>;
}

/** A sub-workflow that waits for a person: its persisted snapshot (JSON) and where and why it waits. */
export interface HeldChild {
  snapshot: Record<string, unknown>;
  nodeId: string;
  reason: string;
}

/** How a waiting sub-workflow continues: from its held snapshot, with the person's reply. */
export interface ChildResume {
  held: HeldChild;
  reply: unknown;
}

/**
 * Thrown by a sub-workflow step whose workflow waits for a person: the parent step node holds the
 * child's snapshot in the run's state and makes the parent wait (see `workflowNodes`). Not an error
 * a step or `onError` may handle.
 */
export class SubWorkflowWaiting extends Error {
  override readonly name = 'SubWorkflowWaiting';
  constructor(
    readonly workflow: string,
    readonly held: HeldChild,
  ) {
    super(`sub-workflow "${workflow}" waits for a person (${held.reason}); a step that runs it where the run cannot wait (inside another step, a plain execute call) cannot continue — use the workflow itself as a step of the main flow, a parallel branch or a fan-out item`);
  }
}

/**
 * Runs a built workflow as a child machine with the parent's current context (and, inside a run,
 * reporting its events under the step's trace path; see {@link subWorkflowTrace}), or continues
 * one that waited, from its held snapshot with the person's reply. Completed, its output goes on
 * and its final context is merged into the parent's (donor wins); aborted, the parent aborts with
 * the same output; failed, the parent step fails with its error; waiting, it throws
 * {@link SubWorkflowWaiting} with its snapshot.
 */
export async function runSubWorkflow(
  workflow: { name: string; toMachine(): GraphMachine },
  ctx: AgentContext,
  input: unknown,
  scope?: StepScope,
  resume?: ChildResume,
  signal?: AbortSignal,
): Promise<SubWorkflowOutcome> {
  const machine = workflow.toMachine();
  let create: () => ReturnType<typeof createActor<GraphMachine>>;
  if (resume === undefined) {
    const parentRun = ctx.get(AgentContext.WORKFLOW_RUN_ID);
    const given: WorkflowMachineInput = { input, runId: `${parentRun ?? 'run'}/${workflow.name}`, context: { ...ctx.toJSON() } };
    // Run inside a parent run, its events go to the parent's listeners under the step's path.
    if (scope !== undefined) given.trace = subWorkflowTrace(scope);
    create = () => createActor(machine, { input: given as never });
  } else {
    create = () => createActor(machine, { snapshot: resume.held.snapshot } as never);
  }
  let actor: ReturnType<typeof create>;
  let meter: BudgetMeter | null = null;
  if (scope === undefined) actor = create();
  else {
    const runtime = scope.runtime.child();
    // Under a run with a budget, the child's steps are checked against it and count as its
    // iterations (each executed leaf step once; the step that runs the child does not count itself).
    meter = scope.runtime.meter;
    if (meter !== null) {
      runtime.meter = meter;
      runtime.nestedMeter = true;
      runtime.uncountedNode = (workflow as { compile?(): WorkflowGraph }).compile?.().finishNode ?? null;
    }
    // A restored child keeps the trace it started with.
    const trace = (resume?.held.snapshot.context as GraphMachineContext | undefined)?.trace;
    if (trace !== undefined) runtime.trace = trace;
    actor = createWithRuntime(runtime, create);
  }
  try {
    return await driveChild(workflow.name, actor, resume, signal);
  } finally {
    meter?.leaveSubWorkflow();
  }
}

/** Drives the child's actor to its end and turns its outcome into the parent step's (see {@link runSubWorkflow}). */
async function driveChild(
  name: string,
  actor: ReturnType<typeof createActor<GraphMachine>>,
  resume: ChildResume | undefined,
  signal: AbortSignal | undefined,
): Promise<SubWorkflowOutcome> {
  let held: unknown = null;
  const done = driveActor(actor, { ...(signal === undefined ? {} : { signal }), ignoreRestoredWait: resume !== undefined, onWaiting: (a) => (held = a.getPersistedSnapshot()) });
  if (resume !== undefined) actor.send({ type: 'human.reply', reply: resume.reply });
  const out = (await done) as unknown as WorkflowMachineOutput;
  if (out.status === 'waiting') {
    const kept = heldSnapshot(held);
    if (kept instanceof SwitchboardError) throw kept;
    throw new SubWorkflowWaiting(name, { snapshot: kept, nodeId: out.waiting?.nodeId ?? '', reason: out.waiting?.reason ?? 'waits for a person' });
  }
  if (out.status === 'aborted') throw new WorkflowAbort(out.output, `sub-workflow "${name}" was aborted`);
  if (out.status !== 'completed') {
    // A budget of the run spent inside the child (a model call it refused) is the run's: carried
    // as the cause, the parent stops for the budget as if its own step had been refused.
    const refusal = budgetRefusal(runtimeOf(actor).error) ?? (out.budget?.exceeded ? exceededError(out.budget.exceeded) : null);
    throw new WorkflowExecutionError(`sub-workflow "${name}" ended ${out.status}${out.error === null ? '' : `: ${out.error.message}`}`, {
      code: (out.error?.code as never) ?? 'node_failed',
      nodeId: name,
      ...(refusal === null ? {} : { cause: refusal }),
    });
  }
  return { output: out.output, context: out.context };
}
