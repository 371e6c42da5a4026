import type { WorkflowRun } from '../../src/index.js';

/** The counter a Switchboard run of the benchmarks' graphs ended with; throws when the run did not complete. */
export function countOf(run: WorkflowRun): number {
  if (run.status !== 'completed') throw new Error(`switchboard run ended ${run.status}: ${run.error?.message ?? ''}`);
  return run.state.get('count') as number;
}
