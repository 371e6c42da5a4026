import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { AgentContext } from './AgentContext.js';
import type { NodeRuntime } from './compileWorkflow.js';
import { executeStep } from './executeStep.js';

/**
 * A dynamic fan-out: `itemsOf(ctx, input)` gives the items, `stepFor(item, index)` a step for
 * each; all run concurrently on the context as it was at the fork. The output is their outputs in
 * item order; their context writes merge in the order they finish (the last one wins a conflict).
 */
export async function runFanOut(rt: Extract<NodeRuntime, { type: 'fan-out' }>, ctx: AgentContext, input: unknown): Promise<{ outputs: unknown[]; context: AgentContext }> {
  const items = await rt.itemsOf(ctx, input);
  if (!Array.isArray(items)) {
    throw new WorkflowExecutionError(`parallel(itemsOf, stepFor): itemsOf returned ${items === null ? 'null' : typeof items}; return an array of items`, { code: 'invalid_node_result' });
  }
  let merged = ctx;
  const outputs = await Promise.all(
    items.map(async (item, index) => {
      const step = rt.stepFor(item, index);
      if (step === null || typeof step !== 'object' || typeof step.execute !== 'function') {
        throw new GraphDefinitionError(`parallel(itemsOf, stepFor): stepFor(item ${index}) returned no step; return a Step (step(name, fn))`);
      }
      const done = await executeStep(step, ctx, item);
      merged = merged.mergeFrom(AgentContext.trusted(done.context.changesFrom(ctx)));
      return done.output;
    }),
  );
  return { outputs, context: merged };
}
