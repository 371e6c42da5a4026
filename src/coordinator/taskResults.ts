import type { GraphMachineOutput } from '../graph/GraphMachineContext.js';
import type { SerializedError } from '../errors/SwitchboardError.js';
import type { CoordinatorTask, DispatchSummary, TaskResult } from './CoordinatorTask.js';

/** What results need from the coordinator. */
export interface ResultConfig {
  exportState: readonly string[];
  needsHuman: (state: Record<string, unknown>) => string | null;
}

/** The label of a task in messages and traces: `kind[n]` (1-based). */
export const taskLabel = (kind: string, index: number): string => `${kind}[${index + 1}]`;

/** A specialist's result from its run's output. */
export function resultOf(task: CoordinatorTask, index: number, config: ResultConfig, output: GraphMachineOutput, attempts: number): TaskResult {
  const state = output.state;
  const exported: Record<string, unknown> = {};
  for (const key of config.exportState) if (key in state) exported[key] = state[key];
  const humanReason = config.needsHuman(state);
  const fused = output.status === 'max-steps' ? `stopped by its maxSteps fuse after ${output.steps} steps` : null;
  return {
    index,
    kind: task.kind,
    input: task.input,
    runId: output.runId,
    status: output.status,
    outputText: output.outputText,
    needsHuman: humanReason !== null,
    reason: humanReason ?? output.error?.message ?? fused,
    path: output.path,
    error: output.error,
    output: exported,
    attempts,
  };
}

/** A result for a task that ended without an output of its own: it threw, timed out or was cancelled. */
export function endedResult(
  task: CoordinatorTask,
  index: number,
  runId: string,
  status: 'failed' | 'cancelled',
  reason: string,
  error: SerializedError | null,
  attempts: number,
): TaskResult {
  return { index, kind: task.kind, input: task.input, runId, status, outputText: null, needsHuman: false, reason, path: [], error, output: {}, attempts };
}

/** True for a result the failure policy counts as a failure: failed, timed out, or stopped by its fuse. */
export const isFailure = (result: TaskResult): boolean => result.status === 'failed' || result.status === 'max-steps';

/** Counts the results by outcome and lists the problems. */
export function summarize(results: readonly TaskResult[]): DispatchSummary {
  const summary: DispatchSummary = { tasks: results.length, completed: 0, failed: 0, cancelled: 0, maxSteps: 0, problems: [] };
  for (const r of results) {
    if (r.status === 'completed') summary.completed += 1;
    else if (r.status === 'failed') summary.failed += 1;
    else if (r.status === 'cancelled') summary.cancelled += 1;
    else if (r.status === 'max-steps') summary.maxSteps += 1;
    if (r.status !== 'completed') summary.problems.push(`${taskLabel(r.kind, r.index)}: ${r.reason ?? r.status}`);
  }
  return summary;
}
