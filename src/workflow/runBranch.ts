import { serializeError } from '../errors/SwitchboardError.js';
import type { AgentContext } from './AgentContext.js';
import { executeStep, matchesError } from './executeStep.js';
import type { Step } from './Step.js';
import { SubWorkflowWaiting, type ChildResume } from './runSubWorkflow.js';
import { WorkflowAbort, WorkflowTermination } from './WorkflowAbort.js';
import type { ErrorMatcher } from './WorkflowBlock.js';
import { WORKFLOW_KEYS, type EarlyEnd } from './workflowKeys.js';
import type { WorkflowLane } from './WorkflowLane.js';
import { withFields } from '../graph/withFields.js';

/** An `onError` recovery as a fork compiles it: its node (reached by an `error` edge from the branch) and step. */
export interface Recovery {
  nodeId: string;
  match: ErrorMatcher;
  step: Step;
}

/** How a branch ended: its output and context, the node ids it ran, and an early end (abort, terminate) if a step asked for one. */
export interface BranchOutcome {
  output: unknown;
  context: AgentContext;
  ran: string[];
  end: { value: unknown; end: EarlyEnd['end']; message?: string } | null;
}

/** The early end a thrown value asks for (WorkflowAbort, Steps.terminate), or null. */
export function earlyEndOf(error: unknown): BranchOutcome['end'] {
  if (error instanceof WorkflowAbort) return { value: error.result, end: 'aborted' };
  if (error instanceof WorkflowTermination) return { value: error.message, end: error.status, message: error.message };
  return null;
}

async function laneStep(lane: WorkflowLane | null, nodeId: string, step: Step, ctx: AgentContext, input: unknown, resume?: ChildResume) {
  lane?.started(nodeId, input);
  try {
    const done = await executeStep(step, ctx, input, lane?.scope(nodeId), resume);
    lane?.completed(nodeId, done.output, done.context.changesFrom(ctx));
    return done;
  } catch (error) {
    // A sub-workflow that waits for a person has not failed: the fork waits with it.
    if (!(error instanceof SubWorkflowWaiting)) lane?.failed(nodeId, error);
    throw error;
  }
}

/**
 * Runs one branch of a fork (or one item of a fan-out) as its own lane: the step, and when it
 * throws an error an `onError` handler matches, that handler's recovery on the same input (the
 * error under `workflow.error`, as for any step). An abort or terminate in the branch is returned
 * as the branch's early end, for the join to end the run with. A sub-workflow step that waits for a
 * person throws `SubWorkflowWaiting` (no recovery applies); `resume` continues it with the reply.
 */
export async function runBranch(nodeId: string, step: Step, recoveries: readonly Recovery[], ctx: AgentContext, input: unknown, lane: WorkflowLane | null, resume?: ChildResume): Promise<BranchOutcome> {
  const ran = [nodeId];
  try {
    try {
      return withFields(await laneStep(lane, nodeId, step, ctx, input, resume), { ran, end: null });
    } catch (error) {
      const recovery = earlyEndOf(error) === null && !(error instanceof SubWorkflowWaiting) ? recoveries.find((r) => matchesError(r.match, error)) : undefined;
      if (recovery === undefined) throw error;
      const failed = ctx.mutate().with(WORKFLOW_KEYS.error, { step: step.name, ...serializeError(error) }).build();
      ran.push(recovery.nodeId);
      return withFields(await laneStep(lane, recovery.nodeId, recovery.step, failed, input), { ran, end: null });
    }
  } catch (error) {
    const end = earlyEndOf(error);
    if (end === null) throw error;
    return { output: end.value, context: ctx, ran, end };
  }
}
