import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import type { RunRuntime } from '../graph/RunRuntime.js';
import { AgentContext } from './AgentContext.js';
import type { NodeRuntime } from './compileWorkflow.js';
import { runBranch, type BranchOutcome } from './runBranch.js';
import { WorkflowLane } from './WorkflowLane.js';

/** The run a fan-out reports its items in (absent outside a run). */
export interface FanOutRun {
  runtime: RunRuntime;
  runId: string;
  step: number;
}

/**
 * A dynamic fan-out: `itemsOf(ctx, input)` gives the items, `stepFor(item, index)` a step for
 * each; all run concurrently on the context as it was at the fork, each in its own trace lane
 * (`<path>/<for-each node>[n]`) and with the workflow's `onError` recoveries. The output is their
 * outputs in item order; their context writes merge in the order they finish (the last one wins a
 * conflict). An item that aborts or terminates ends the run (the first such item, in item order).
 */
export async function runFanOut(rt: Extract<NodeRuntime, { type: 'fan-out' }>, ctx: AgentContext, input: unknown, run: FanOutRun | null): Promise<{ outputs: unknown[]; context: AgentContext; end: BranchOutcome['end'] }> {
  const items = await rt.itemsOf(ctx, input);
  if (!Array.isArray(items)) {
    throw new WorkflowExecutionError(`parallel(itemsOf, stepFor): itemsOf returned ${items === null ? 'null' : typeof items}; return an array of items`, { code: 'invalid_node_result' });
  }
  let merged = ctx;
  const done = await Promise.all(
    items.map(async (item, index) => {
      const step = rt.stepFor(item, index);
      if (step === null || typeof step !== 'object' || typeof step.execute !== 'function') {
        throw new GraphDefinitionError(`parallel(itemsOf, stepFor): stepFor(item ${index}) returned no step; return a Step (step(name, fn))`);
      }
      const lane = run === null ? null : new WorkflowLane(run.runtime, run.runId, `${rt.template}[${index + 1}]`, run.step);
      const outcome = await runBranch(step.name, step, rt.recoveries, ctx, item, lane);
      merged = merged.mergeFrom(AgentContext.trusted(outcome.context.changesFrom(ctx)));
      return outcome;
    }),
  );
  return { outputs: done.map((d) => d.output), context: merged, end: done.find((d) => d.end !== null)?.end ?? null };
}
