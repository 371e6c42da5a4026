import { createActor, toPromise } from 'xstate';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import type { GraphMachine } from '../graph/compileMachine.js';
import { AgentContext } from './AgentContext.js';
import { WorkflowAbort } from './WorkflowAbort.js';
import type { WorkflowMachineInput, WorkflowMachineOutput } from './workflowMachine.js';
import { subWorkflowTrace, type StepScope } from './WorkflowLane.js';
import { createWithRuntime } from '../graph/RunRuntime.js';

/** The method a built workflow runs itself by as a step of another (its output and final context). */
export const RUN_CHILD = Symbol.for('switchboard.runChild');

/** What a sub-workflow hands back to its parent: its output and its final context. */
export interface SubWorkflowOutcome {
  output: unknown;
  context: Record<string, unknown>;
}

/**
 * Runs a built workflow as a child machine with the parent's current context (and, inside a run,
 * reporting its events under the step's trace path; see {@link subWorkflowTrace}). Completed, its
 * output goes on and its final context is merged into the parent's (donor wins); aborted, the
 * parent aborts with the same output; failed, the parent step fails with its error.
 */
export async function runSubWorkflow(workflow: { name: string; toMachine(): GraphMachine }, ctx: AgentContext, input: unknown, scope?: StepScope, signal?: AbortSignal): Promise<SubWorkflowOutcome> {
  const parentRun = ctx.get(AgentContext.WORKFLOW_RUN_ID);
  const runId = `${parentRun ?? 'run'}/${workflow.name}`;
  const given: WorkflowMachineInput = { input, runId, context: { ...ctx.toJSON() } };
  // Run inside a parent run, its events go to the parent's listeners under the step's path.
  if (scope !== undefined) given.trace = subWorkflowTrace(scope);
  const create = () => createActor(workflow.toMachine(), { input: given as never });
  const actor = scope === undefined ? create() : createWithRuntime(scope.runtime.child(), create);
  const stop = () => actor.send({ type: 'workflow.cancel' });
  signal?.addEventListener('abort', stop, { once: true });
  try {
    actor.start();
    const out = (await toPromise(actor)) as unknown as WorkflowMachineOutput;
    if (out.status === 'aborted') throw new WorkflowAbort(out.output, `sub-workflow "${workflow.name}" was aborted`);
    if (out.status !== 'completed') {
      throw new WorkflowExecutionError(`sub-workflow "${workflow.name}" ended ${out.status}${out.error === null ? '' : `: ${out.error.message}`}`, {
        code: (out.error?.code as never) ?? 'node_failed',
        nodeId: workflow.name,
      });
    }
    return { output: out.output, context: out.context };
  } finally {
    signal?.removeEventListener('abort', stop);
    actor.stop();
  }
}
