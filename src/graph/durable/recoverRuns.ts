import type { RunRecord, RunStore } from '../../persistence/RunStore.js';
import type { GraphMachineContext } from '../GraphMachineContext.js';
import { forkLinkOf } from '../../history/forkReplay.js';
import { describeThrown } from '../../errors/SwitchboardError.js';
import { toRunnableGraph, type RegisteredGraph, type RunnableGraph } from '../RunnableGraph.js';
import type { WorkflowRun } from '../WorkflowRun.js';
import type { ResumeOptions } from './DurableOptions.js';
import { ownerMayBeAlive } from './owner.js';
import { resumeRun } from './resumeRun.js';
import { systemClock } from '../RunOptions.js';
import { guardClock } from '../guardClock.js';

/** What `recover()` did with one run. */
export type RecoveryOutcome =
  | { runId: string; outcome: 'recovered'; run: WorkflowRun }
  | { runId: string; outcome: 'skipped'; reason: string };

/** Options for {@link recoverRuns}. */
export interface RecoverOptions extends ResumeOptions {
  /** The graphs (and typed workflows) this process can run, looked up by name. */
  graphs: readonly RegisteredGraph[];
  /** Only mark runs interrupted; do not continue them (default false). */
  markOnly?: boolean;
}

/** True when a `running` run has no live owner: its lease expired, or its owner process on this host is gone. */
export function isOrphaned(record: RunRecord, now: number): boolean {
  if (record.status !== 'running') return false;
  if (record.leaseExpiresAt === null || record.leaseExpiresAt <= now) return true;
  return !ownerMayBeAlive(record.owner);
}

/**
 * Finds runs whose process died (`running` with an expired lease or a dead owner on this host),
 * marks them `interrupted`, then continues every interrupted run from its last checkpoint. The node
 * that was in flight runs again; a side effect journaled with `ctx.once` is not repeated once its
 * result is in the journal (a crash between the effect and that write repeats the call with the same
 * idempotency key; see `WorkflowContext.once`). A fork goes on replaying its parent's steps (never
 * executing them), and one that stopped at a human node among them goes on with the reply the
 * parent's got. Other waiting runs stay waiting, but a graph that watches
 * its waits (`watchWait`: a typed workflow's HumanGate deadline) watches them again in this process.
 *
 * @example
 * const outcomes = await recoverRuns({ store, graphs: [customerService] });
 */
export async function recoverRuns(options: RecoverOptions): Promise<RecoveryOutcome[]> {
  const { store } = options;
  const now = guardClock(options.clock ?? systemClock, () => {}).now();
  for (const record of await store.listRuns({ status: 'running', limit: 10_000 })) {
    if (isOrphaned(record, now)) {
      // A lost compare-and-set means the owner was alive after all, or another process got there first.
      await store.updateRun(record.runId, record.version, { status: 'interrupted', owner: null, leaseExpiresAt: null });
    }
  }
  // What a resume takes: the graphs and markOnly are recovery's own.
  const { graphs: _graphs, markOnly: _markOnly, ...resume } = options;
  const outcomes: RecoveryOutcome[] = [];
  for (const record of await store.listRuns({ status: 'interrupted', limit: 10_000 })) {
    const found = options.graphs.find((g) => g.name === record.graphName);
    const graph = found === undefined ? undefined : toRunnableGraph(found);
    if (options.markOnly === true) {
      outcomes.push({ runId: record.runId, outcome: 'skipped', reason: 'marked interrupted only' });
    } else if (graph === undefined) {
      outcomes.push({ runId: record.runId, outcome: 'skipped', reason: `no graph named "${record.graphName}" is registered in this process` });
    } else {
      try {
        outcomes.push({ runId: record.runId, outcome: 'recovered', run: await goOn(graph, record.runId, resume) });
      } catch (error) {
        outcomes.push({ runId: record.runId, outcome: 'skipped', reason: describeThrown(error) });
      }
    }
  }
  if (options.markOnly !== true) {
    // Waits a front end watches (a typed workflow's HumanGate deadline) are watched again in this process.
    for (const record of await store.listRuns({ status: 'waiting', limit: 10_000 })) {
      const found = options.graphs.find((g) => g.name === record.graphName);
      if (found === undefined) continue;
      const graph = toRunnableGraph(found);
      // A fork that stopped at a human node among the steps it replays (its process died before it
      // gave the node the parent's reply) goes on with that reply, as `forkRun` would have.
      const replayed = await replayedWait(store, record).catch((error: unknown) => describeThrown(error));
      if (typeof replayed === 'string') outcomes.push({ runId: record.runId, outcome: 'skipped', reason: replayed });
      if (replayed === true) {
        try {
          outcomes.push({ runId: record.runId, outcome: 'recovered', run: await goOn(graph, record.runId, resume) });
        } catch (error) {
          outcomes.push({ runId: record.runId, outcome: 'skipped', reason: describeThrown(error) });
        }
        continue;
      }
      graph.watchWait?.(record.runId, { store, ...(options.owner ? { owner: options.owner } : {}), ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}) });
    }
  }
  return outcomes;
}

/** Continues a run, and a fork on past each human node among its replayed steps (with the reply the parent's got). */
async function goOn(graph: RunnableGraph, runId: string, resume: ResumeOptions): Promise<WorkflowRun> {
  let run = await resumeRun(graph, runId, undefined, resume);
  while (run.status === 'waiting') {
    const record = await resume.store.getRun(runId);
    if (record === null || !(await replayedWait(resume.store, record))) break;
    run = await resumeRun(graph, runId, undefined, resume);
  }
  return run;
}

/**
 * True when a waiting run is a fork waiting at a human node among the steps it replays. Only its
 * first event is read: the parent's history, which `resumeRun` reads to give the node the reply
 * the parent's got (or to refuse a fork whose parent lost those steps), is read there once. A
 * replayed step is the parent's same node, which the parent completed, so with its reply.
 */
async function replayedWait(store: RunStore, record: RunRecord): Promise<boolean> {
  const context = (record.snapshot as { context?: GraphMachineContext } | null)?.context;
  if (context?.waiting === null || context?.waiting === undefined || context.waiting.breakpoint !== undefined || context.waiting.specialist !== undefined || context.waiting.queued !== undefined) return false;
  const link = await forkLinkOf(store, record.runId);
  return link !== null && context.steps >= 1 && context.steps <= link.step;
}
