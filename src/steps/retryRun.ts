import type { AgentRequest } from '../graph/AgentNode.js';
import { loadRun } from '../graph/durable/resumeRun.js';
import { runDurable } from '../graph/durable/runDurable.js';
import type { RunOptions } from '../graph/RunOptions.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';
import type { WorkflowRun } from '../graph/WorkflowRun.js';
import { RunStateError } from '../errors/RunStateError.js';
import { storedBudget } from '../budget/storedBudget.js';
import { FINISHED_STATUSES, type RunStore } from '../persistence/RunStore.js';
import { CheckpointManager } from './CheckpointManager.js';
import { checkpointingStepRunner } from './checkpointingStepRunner.js';
import { forkReplayOf } from '../history/forkReplay.js';
import { FORK_OF } from '../history/forkLink.js';

/** What {@link retryRun} did: the steps it reset, and the run's new outcome. */
export interface RetryOutcome {
  reset: string[];
  run: WorkflowRun;
}

/**
 * An operator's retry of a stored run that failed (after a transient outage, say): its FAILED step
 * records are reset, then the run starts again from its beginning under the same id, in the same
 * row, with `checkpointingStepRunner(store)` (or `options.stepRunner`), so the steps that completed
 * are reused and only the reset ones (and those after them) execute. It starts from what the run
 * first started with: the input and the initial shared state (a typed workflow's initial context)
 * of its stored `run.started` event, unless `options.state` is given; its budgets, counting what
 * its failed leg spent (tokens, cost, active time), unless `options.budget` is given. The run must have been run
 * with a checkpointing step runner for anything to be reused. `switchboard retry <runId>`.
 *
 * `failed` is a finished status (`FINISHED_STATUSES`): nothing else moves a failed run — not
 * resume, recover or cancel. This retry is the one deliberate exception, an operator's act: it
 * moves the row from `failed` back to `running` by compare-and-set on its version (a concurrent
 * writer gets `run_conflict`), its events numbered on after the failed leg's, and the run ends
 * with a status of its own again. Only a `failed` run can be retried; every other finished status
 * stays final. A fork replays its parent's steps again; one whose parent no longer has them
 * (deleted, or retried since and stopped short of them) is refused with `fork_unsupported` before
 * anything is written, its failed step records kept.
 */
export async function retryRun(graph: RunnableGraph, runId: string, options: Omit<RunOptions, 'store' | 'runId'> & { store: RunStore }): Promise<RetryOutcome> {
  const { store } = options;
  const machine = graph.toMachine();
  const record = await loadRun(store, machine, runId);
  if (record.status !== 'failed') {
    // A run still going (running, waiting, queued, interrupted) is no finished one: it conflicts with the retry.
    const finished = FINISHED_STATUSES.has(record.status);
    throw new RunStateError(`run ${runId} is ${record.status}; only a failed run can be retried (resume a waiting run, recover an interrupted one${finished ? '' : ', or retry it once it has failed'})`, {
      code: finished ? 'run_finished' : 'run_conflict',
      runId,
    });
  }
  const first = (await store.listEvents(runId, { limit: 1 }))[0];
  const started = first?.type === 'run.started' ? (first.data as { request?: AgentRequest; state?: Record<string, unknown> }) : undefined;
  const request = started?.request;
  if (request === undefined) {
    throw new RunStateError(`run ${runId} has no stored run.started event to take its input from; it cannot be retried`, { code: 'run_conflict', runId });
  }
  // The run's budgets, and what its failed leg spent, hold for the retry too (options.budget replaces them).
  const budget = options.budget ?? storedBudget(record.snapshot, runId);
  // A fork replays its parent's steps again (they have no step records of their own to reuse), and its new run.started names its parent.
  // Read before anything is reset: a fork whose parent lost those steps is refused with nothing changed.
  const replay = await forkReplayOf(store, machine, record, { fromStart: true, first });
  const reset = await new CheckpointManager(store).resetFailedSteps(runId);
  // The shared state it was started with (a workflow's context with its run id and name) comes back too.
  const state = options.state ?? started?.state;
  const runner = options.stepRunner ?? checkpointingStepRunner(store);
  const fork = replay === null ? {} : { stepRunner: replay.runner(runner), [FORK_OF]: replay.link };
  const run = await runDurable(machine, request, { ...options, ...(state === undefined ? {} : { state }), ...(budget === undefined ? {} : { budget }), runId, stepRunner: runner, ...fork }, false, undefined, record);
  return { reset, run };
}
