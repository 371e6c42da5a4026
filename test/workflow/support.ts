import { createActor, toPromise } from 'xstate';
import type { Workflow, WorkflowMachineOutput, WorkflowResult } from 'switchboard';
import { expect } from 'vitest';

/** Runs the workflow with run() and under plain XState (createActor + toPromise) and checks both agree. */
export async function runBoth<I, O>(workflow: Workflow<I, O>, input: I, context: Record<string, unknown> = {}): Promise<WorkflowResult<O>> {
  const run = await workflow.run(input, { context });
  const actor = createActor(workflow.toMachine(), { input: { input, context } as never });
  actor.start();
  const out = (await toPromise(actor)) as unknown as WorkflowMachineOutput;
  expect(out.status).toBe(run.status);
  expect(out.output).toEqual(run.output);
  expect(out.path).toEqual(run.path);
  const strip = (c: Record<string, unknown>) => Object.fromEntries(Object.entries(c).filter(([k]) => k !== 'workflow.runId'));
  expect(strip(out.context)).toEqual(strip({ ...run.context.toJSON() }));
  return run;
}
