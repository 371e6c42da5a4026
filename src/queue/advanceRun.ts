import { FINISHED_STATUSES, type RunRecord, type RunStore } from '../persistence/RunStore.js';
import { RunStateError } from '../errors/RunStateError.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';
import type { WorkflowRun } from '../graph/WorkflowRun.js';
import type { GraphMachineContext } from '../graph/GraphMachineContext.js';
import type { ResumeOptions } from '../graph/durable/DurableOptions.js';
import { isOrphaned } from '../graph/durable/recoverRuns.js';
import { legOwnerId } from '../graph/durable/owner.js';
import { defaultOwner } from '../graph/durable/runDurable.js';
import { resumeRun, waitsForSpecialists } from '../graph/durable/resumeRun.js';
import { cancelRun } from '../graph/durable/cancelRun.js';
import { specialistParentOf } from '../graph/SpecialistRuns.js';
import { pendingReply } from './pendingReply.js';

/** What a worker did with one run job. */
export type LegOutcome =
  /** It ran a leg of the run, which ended or waits (`run.status`). */
  | { runId: string; outcome: 'advanced'; run: WorkflowRun }
  /** Another owner holds the run's lease (a living worker runs it): the job waits until `until`. */
  | { runId: string; outcome: 'held'; owner: string | null; until: number }
  /** Nothing to do: the run finished, waits without a reply, or is gone. */
  | { runId: string; outcome: 'nothing'; reason: string };

/** Everything {@link advanceRun} needs. */
export interface AdvanceOptions extends Omit<ResumeOptions, 'store'> {
  store: RunStore;
  /**
   * The worker's owner id (default this process's): the leg claims the run under an id of its own
   * made from it, `owner/leg-n` (see `legOwnerId`), so two legs of one run on one worker never take
   * each other's row for their own.
   */
  owner?: string;
  graphs: ReadonlyMap<string, RunnableGraph>;
  now?: () => number;
}

/** Attempts before a run that keeps changing under the worker is left to its job's retry. */
const ATTEMPTS = 4;

/**
 * Advances a stored run by one leg, whatever state a job finds it in: a queued or interrupted run
 * continues from its snapshot; a waiting run with a reply kept by `RunQueue.resume` takes it; a
 * running run whose owner is gone (lease expired, or its process on this host died) is marked
 * interrupted and continued; a running run whose owner lives is left to it (`held`). The claim is
 * the store's compare-and-set, so of two workers given the same run at once exactly one advances it.
 * A coordinator's specialist run whose coordinator run has finished (cancelled while its dispatch
 * was still creating its specialist runs, failed…) is cancelled instead (`nothing`): nothing wants
 * its result any more; one whose leg ends at a wait after its coordinator run finished is cancelled
 * then (`advanced`, the run `cancelled`). The leg holds the run under an owner id of its own, made
 * from `options.owner` (`owner/leg-n`).
 */
export async function advanceRun(runId: string, options: AdvanceOptions): Promise<LegOutcome> {
  const { store } = options;
  const now = options.now ?? Date.now;
  const owner = legOwnerId(options.owner ?? defaultOwner());
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const record = await store.getRun(runId);
    if (record === null) return { runId, outcome: 'nothing', reason: 'no such run in the store' };
    if (FINISHED_STATUSES.has(record.status)) return { runId, outcome: 'nothing', reason: `the run already ${record.status === 'completed' ? 'completed' : `ended (${record.status})`}` };
    const parent = await finishedCoordinator(store, record);
    if (parent !== null) {
      try {
        await cancelRun(store, runId, { now });
      } catch (error) {
        // It ended or changed meanwhile: read it again.
        if (error instanceof RunStateError && (error.code === 'run_conflict' || error.code === 'run_finished')) continue;
        throw error;
      }
      return { runId, outcome: 'nothing', reason: `its coordinator run ${parent.runId} ended (${parent.status}); the specialist run was cancelled` };
    }
    const graph = options.graphs.get(record.graphName);
    if (graph === undefined) {
      throw new GraphDefinitionError(
        `run ${runId} is of graph "${record.graphName}", which this worker does not have (it has ${[...options.graphs.keys()].join(', ') || 'none'}); start workers with the same --graphs module as the queue`,
      );
    }
    const { graphs: _graphs, now: _now, ...rest } = options;
    const resume = { ...rest, owner };
    let run: WorkflowRun;
    try {
      if (record.status === 'waiting' && waitsForSpecialists(record)) {
        // Its coordinator's specialists on the queue ended (or a deadline came): the join looks again.
        run = await resumeRun(graph, runId, undefined, resume);
      } else if (record.status === 'waiting') {
        const reply = await pendingReply(store, record);
        if (reply === undefined) return { runId, outcome: 'nothing', reason: 'the run waits for a reply' };
        run = await resumeRun(graph, runId, { reply: reply.value }, resume);
      } else {
        if (record.status === 'running') {
          if (!isOrphaned(record, now())) return { runId, outcome: 'held', owner: record.owner, until: record.leaseExpiresAt ?? now() };
          // Its owner is gone: whoever marks it interrupted first continues it.
          if ((await store.updateRun(runId, record.version, { status: 'interrupted', owner: null, leaseExpiresAt: null })) === null) continue;
        }
        run = await resumeRun(graph, runId, undefined, resume);
      }
    } catch (error) {
      // Another worker (or a cancel) changed the run between the read and the claim: read it again.
      if (error instanceof RunStateError && (error.code === 'run_conflict' || error.code === 'run_not_waiting' || error.code === 'run_finished')) continue;
      throw error;
    }
    return { runId, outcome: 'advanced', run: await unlessOrphanedWait(store, record, run, now) };
  }
  throw new RunStateError(`run ${runId} kept changing while a worker tried to claim it; its job is retried`, { code: 'run_conflict', runId, retryable: true });
}

/**
 * The coordinator run that started `record`, a specialist run (see {@link startedBy}), when it has
 * finished (cancelled, failed, completed…); null while it runs or waits, and for any other run.
 */
async function finishedCoordinator(store: RunStore, record: RunRecord): Promise<RunRecord | null> {
  const parentId = specialistParentOf(record.runId);
  const parent = parentId === null ? null : await store.getRun(parentId);
  return parent !== null && FINISHED_STATUSES.has(parent.status) && startedBy(record, parent) ? parent : null;
}

/**
 * A specialist run whose leg ended at a wait (for a person) after its coordinator run finished is
 * cancelled: nothing wants its reply any more, and without one no leg would look at its coordinator
 * again, so it would wait for ever. The coordinator's own cancel never listed it (cancelled in its
 * dispatch, before its join stored `waiting.queued`), or the coordinator failed. A run whose row
 * changed meanwhile (a reply took it) is left to its next leg, which checks its coordinator first.
 */
async function unlessOrphanedWait(store: RunStore, record: RunRecord, run: WorkflowRun, now: () => number): Promise<WorkflowRun> {
  if (run.status !== 'waiting' || (await finishedCoordinator(store, record)) === null) return run;
  try {
    await cancelRun(store, record.runId, { now });
  } catch (error) {
    if (!(error instanceof RunStateError) || (error.code !== 'run_conflict' && error.code !== 'run_finished')) throw error;
    // A reply took it meanwhile, or another cancel came first: the row says how it stands.
    if ((await store.getRun(record.runId))?.status !== 'cancelled') return run;
  }
  run.status = 'cancelled';
  delete run.waiting;
  return run;
}

/**
 * True when `parent`'s dispatch started `run`: a specialist run joins its coordinator run's trace
 * (the dispatch node's span its parent). A run whose id only has the form of a specialist run's
 * (a user's own `order:42:1` beside a run `order`) has a trace of its own.
 */
function startedBy(run: RunRecord, parent: RunRecord): boolean {
  const traceOf = (record: RunRecord) => (record.snapshot as { context?: Partial<GraphMachineContext> } | null)?.context?.trace;
  const child = traceOf(run);
  return child !== undefined && child.parentSpanId !== null && child.traceId === traceOf(parent)?.traceId;
}
