import { createActor, toPromise } from 'xstate';
import type { Workflow, WorkflowMachineOutput, WorkflowResult } from 'switchboard';
import { expect } from 'vitest';

/**
 * Runs the workflow with run() and under plain XState (createActor + toPromise) and checks both
 * agree: status, output, path, context and, for a run that failed, its error.
 */
export async function runBoth<I, O>(workflow: Workflow<I, O>, input: I, context: Record<string, unknown> = {}, options: { maxIterations?: number } = {}): Promise<WorkflowResult<O>> {
  const run = await workflow.run(input, { context, ...options });
  const actor = createActor(workflow.toMachine(), { input: { input, context, ...options } as never });
  actor.start();
  const out = (await toPromise(actor)) as unknown as WorkflowMachineOutput;
  expect(out.status).toBe(run.status);
  expect(out.output).toEqual(run.output);
  expect(out.path).toEqual(run.path);
  expect(out.error?.message).toEqual(run.error?.message);
  const strip = (c: Record<string, unknown>) => Object.fromEntries(Object.entries(c).filter(([k]) => k !== 'workflow.runId'));
  expect(strip(out.context)).toEqual(strip({ ...run.context.toJSON() }));
  return run;
}
