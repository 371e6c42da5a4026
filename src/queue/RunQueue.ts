import type { Queue } from 'bullmq';
import { FINISHED_STATUSES, type RunRecord, type RunStore } from '../persistence/RunStore.js';
import { RunStateError } from '../errors/RunStateError.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import type { AgentRequest } from '../graph/AgentNode.js';
import { toRunnableGraph, type RegisteredGraph, type RunnableGraph } from '../graph/RunnableGraph.js';
import { cancelRun } from '../graph/durable/cancelRun.js';
import { insertQueuedRun, type QueuedRunOptions } from '../graph/durable/insertQueuedRun.js';
import { loadRun, toReplyEvent } from '../graph/durable/resumeRun.js';
import { isOrphaned } from '../graph/durable/recoverRuns.js';
import { redisConnection, type RedisConnection } from './redisConnection.js';
import { safeConnectionUrl } from '../errors/safeConnectionUrl.js';
import { QueueError } from './QueueError.js';
import { RUN_JOB, deadlineJobIdFor, jobIdFor, type RunJobData } from './runJob.js';
import { keepReply, pendingReply, waitStep } from './pendingReply.js';
import { outstandingJobs } from './outstandingJobs.js';
import type { GraphMachineContext } from '../graph/GraphMachineContext.js';

/** Options for {@link RunQueue}. */
export interface RunQueueOptions {
  /** The run store every worker shares: a `PostgresRunStore` (the source of truth; Redis only holds jobs). */
  store: RunStore;
  /** The graphs (and typed workflows) runs can be started of, by name. */
  graphs: readonly RegisteredGraph[];
  /** Where Redis is (default `$SWITCHBOARD_REDIS_URL`). */
  redisUrl?: string;
  /** The BullMQ queue's name (default `$SWITCHBOARD_QUEUE`, else `switchboard-runs`); workers must use the same. */
  queueName?: string;
}

/** What {@link RunQueue.sweep} did. */
export interface SweepOutcome {
  /**
   * The runs it gave a job: runs needing one that had none outstanding (a delayed one is taken
   * now instead). A run with a job waiting or held by a worker is left as it is.
   */
  enqueued: string[];
  /** The waiting runs whose deadline it scheduled (a delayed job that already existed was left as it was). */
  deadlines: string[];
}

/** What a wait that timed out is resumed with (as `watchDeadline` does in process). */
export function timeoutReply(deadline: number): { decision: 'TIMEOUT'; text: string } {
  return { decision: 'TIMEOUT', text: `no decision before the deadline (${new Date(deadline).toISOString()})` };
}

/** The queue name the options or the environment ask for. */
export function queueNameOf(name: string | undefined): string {
  const chosen = name ?? (process.env.SWITCHBOARD_QUEUE || 'switchboard-runs');
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(chosen)) {
    throw new QueueError(`the queue name must be 1-100 letters, digits, "_", "." or "-"; received ${JSON.stringify(chosen.slice(0, 120))}`, { code: 'queue_config' });
  }
  return chosen;
}

/**
 * Runs of registered graphs executed by workers on any machine: the run row is written to the
 * shared store first (status `queued`, its initial snapshot), then a BullMQ job named by the run
 * id is added, so a crash between the two leaves a row that {@link RunQueue.sweep} gives a job, and
 * adding a job twice adds it once. A reply to a waiting run is kept in the store's journal (named by
 * the wait's step) before its job is added, for the same reason. Workers (`RunWorker`, `switchboard worker`) take the jobs.
 *
 * @example
 * const queue = new RunQueue({ store: new PostgresRunStore(), graphs, redisUrl: 'redis://127.0.0.1:6379' });
 * const runId = await queue.start('customer-service', 'Where is my order SO20261001?');
 * // … later, when the run waits for a human:
 * await queue.resume(runId, 'Approved: refund 599 CNY');
 */
export class RunQueue {
  readonly store: RunStore;
  readonly name: string;
  readonly #graphs: Map<string, RunnableGraph>;
  readonly #connection: RedisConnection;
  #queue: Promise<Queue<RunJobData>> | null = null;

  constructor(options: RunQueueOptions) {
    this.store = options.store;
    this.name = queueNameOf(options.queueName);
    this.#connection = redisConnection(options.redisUrl, 'RunQueue');
    this.#graphs = new Map(options.graphs.map((g) => [toRunnableGraph(g).name, toRunnableGraph(g)]));
  }

  /** The Redis URL with its password hidden. */
  get redisUrl(): string {
    return safeConnectionUrl(this.#connection.url);
  }

  /** A registered graph by name. */
  graph(name: string): RunnableGraph {
    const graph = this.#graphs.get(name);
    if (graph === undefined) {
      throw new GraphDefinitionError(`no graph named "${name}" is registered; known: ${[...this.#graphs.keys()].join(', ') || '(none)'}`);
    }
    return graph;
  }

  /**
   * Creates a queued run of a registered graph and its job; resolves to the run id as soon as both
   * are written (no node has run yet). `options.runId` names the run (it must not contain ":").
   */
  async start(graphName: string, input: string | AgentRequest, options: QueuedRunOptions = {}): Promise<string> {
    return (await this.queueRun(graphName, input, options)).runId;
  }

  /**
   * As {@link RunQueue.start}, resolving to the run's row as it was queued (status `queued`): a
   * worker may take the job at once, so reading the row again afterwards can already show it
   * running or waiting.
   */
  async queueRun(graphName: string, input: string | AgentRequest, options: QueuedRunOptions = {}): Promise<RunRecord> {
    const graph = this.graph(graphName);
    if (options.runId !== undefined && (typeof options.runId !== 'string' || options.runId.includes(':') || /^\d+$/.test(options.runId))) {
      throw new GraphDefinitionError(`RunQueue.start: runId must not contain ":" nor be a whole number (BullMQ job ids); received ${JSON.stringify(String(options.runId).slice(0, 80))}`);
    }
    const record = await insertQueuedRun(graph.toMachine(), input, { ...options, store: this.store });
    await this.enqueue(record);
    return record;
  }

  /**
   * Answers a run that waits for a human: the reply is checked against the node it waits at, kept
   * in the store, and a worker continues the run. Of two different replies to one wait the first
   * wins; the other is refused (`run_not_waiting`). Resolves once the reply is queued, to the run
   * as the reply found it (`waiting`): a worker may take the job at once, so reading the row
   * again afterwards can already show it running or finished.
   */
  async resume(runId: string, reply: unknown): Promise<RunRecord> {
    const current = await this.store.getRun(runId);
    if (current === null) throw new RunStateError(`run not found: ${runId}`, { code: 'run_not_found', runId });
    const record = await loadRun(this.store, this.graph(current.graphName).toMachine(), runId);
    if (FINISHED_STATUSES.has(record.status)) {
      throw new RunStateError(`run ${runId} already finished (${record.status}); there is nothing to resume`, { code: 'run_finished', runId });
    }
    if (record.status !== 'waiting') {
      throw new RunStateError(`run ${runId} is ${record.status}, not waiting for a reply; it may have been resumed already`, { code: 'run_not_waiting', runId });
    }
    toReplyEvent(runId, { reply }, this.graph(record.graphName).toMachine(), record);
    await keepReply(this.store, record, reply);
    const kept = await pendingReply(this.store, record);
    if (kept === undefined || JSON.stringify(kept.value) !== JSON.stringify(reply)) {
      throw new RunStateError(`run ${runId} was answered by another reply first; this one was not used`, { code: 'run_not_waiting', runId });
    }
    await this.enqueue(record);
    return record;
  }

  /**
   * Cancels a queued, running, waiting or interrupted run. A worker running it stops at its next
   * checkpoint, which loses its compare-and-set against the cancellation. A coordinator run that
   * waits for its specialist runs cancels those still out with it (see `cancelRun`).
   */
  cancel(runId: string): Promise<RunRecord> {
    return cancelRun(this.store, runId);
  }

  /**
   * Adds the job a run needs now (queued, interrupted, running without a live owner, or waiting
   * with a reply kept). The job is named by the run id and the row's version, so adding it again
   * is a no-op while it exists. `delayMs`: the job is taken no sooner than that.
   */
  async enqueue(record: Pick<RunRecord, 'runId' | 'status' | 'version'>, options: { delayMs?: number } = {}): Promise<void> {
    await this.#add(record.runId, { runId: record.runId }, jobIdFor(record), options.delayMs ?? 0);
  }

  /**
   * Schedules the timeout of the wait a stored run is at, when its graph gives that wait a deadline
   * (a typed workflow's HumanGate with `timeoutMs`): a BullMQ job delayed until the deadline, named
   * by the run, the wait and the deadline, so scheduling it again (a sweep, a second worker) adds it
   * once. Whichever worker takes it then resumes the run with TIMEOUT if it still waits there; no
   * process of the run needs to be alive. Resolves to the deadline, or null when the wait has none.
   */
  async armDeadline(record: Pick<RunRecord, 'runId' | 'graphName' | 'status' | 'snapshot'>): Promise<number | null> {
    if (record.status !== 'waiting') return null;
    const deadline = this.#graphs.get(record.graphName)?.waitDeadline?.(record) ?? null;
    if (deadline === null) return null;
    await this.#add(record.runId, { runId: record.runId, deadline }, deadlineJobIdFor(record.runId, waitStep(record), deadline), Math.max(0, deadline - Date.now()));
    return deadline;
  }

  /**
   * Keeps the TIMEOUT reply for the wait `runId` is at when that wait's deadline is `deadline` and
   * has passed (a delayed job's work before its run is advanced). Of a person's reply and the
   * timeout, the first kept wins, as for two replies. Resolves to what the job should do: advance the
   * run (`due`, also when a reply was kept first), look again later (`early`, the clock is behind),
   * or nothing (`moved`: the run no longer waits there).
   */
  async timeOut(runId: string, deadline: number, now = Date.now()): Promise<'due' | 'early' | 'moved'> {
    const record = await this.store.getRun(runId);
    if (record === null || record.status !== 'waiting') return 'moved';
    if ((this.#graphs.get(record.graphName)?.waitDeadline?.(record) ?? null) !== deadline) return 'moved';
    if (now < deadline) return 'early';
    await keepReply(this.store, record, timeoutReply(deadline));
    return 'due';
  }

  async #add(runId: string, data: RunJobData, jobId: string, delay: number): Promise<void> {
    try {
      await (await this.#bull()).add(RUN_JOB, data, { jobId, delay, removeOnComplete: true, removeOnFail: true, attempts: 5, backoff: { type: 'exponential', delay: 1000 } });
    } catch (cause) {
      throw new QueueError(`cannot add the job of run ${runId} to Redis at ${this.redisUrl}: ${(cause as Error).message}; the run is stored and the next sweep adds it`, {
        code: 'queue_unavailable',
        cause,
      });
    }
  }

  /**
   * Gives a job to every run that needs one and has none outstanding: queued runs (a crash between
   * the row and its job), interrupted runs, running runs whose owner is gone, and waiting runs with
   * a reply kept; and schedules the deadline of every waiting run whose wait has one. A run keeps
   * at most one outstanding job however often it is swept, even while its row's version moves (a
   * run whose workers keep dying): a job already waiting or held by a worker is left to do it, and a
   * delayed one is made due now. Workers call it periodically; after Redis lost its data it
   * restores every job.
   */
  async sweep(options: { now?: number; limit?: number } = {}): Promise<SweepOutcome> {
    const now = options.now ?? Date.now();
    const limit = options.limit ?? 10_000;
    const enqueued: string[] = [];
    const deadlines: string[] = [];
    const candidates: RunRecord[] = [];
    const needing: RunRecord[] = [];
    for (const status of ['queued', 'interrupted', 'running', 'waiting'] as const) candidates.push(...(await this.store.listRuns({ status, limit })));
    for (const record of candidates) {
      if (await this.needsJob(record, now)) {
        needing.push(record);
      } else if (record.status === 'waiting' && (await this.armDeadline(record)) !== null) {
        deadlines.push(record.runId);
      }
    }
    if (needing.length === 0) return { enqueued, deadlines };
    const outstanding = await outstandingJobs(await this.#bull(), new Set(needing.map((r) => r.runId)));
    for (const record of needing) {
      const jobs = outstanding.get(record.runId);
      if (jobs?.taken === true) continue;
      const delayed = jobs?.delayed[0];
      if (delayed === undefined) await this.enqueue(record);
      else await delayed.promote().catch(() => this.enqueue(record));
      enqueued.push(record.runId);
    }
    return { enqueued, deadlines };
  }

  /**
   * True when a run has work a worker could do now: queued, interrupted, running without a live
   * owner, waiting with a reply kept, or waiting for its specialists on the queue when all of them
   * have ended (their worker, or the sweep, continues the coordinator's run).
   */
  async needsJob(record: RunRecord, now = Date.now()): Promise<boolean> {
    if (record.status === 'queued' || record.status === 'interrupted') return true;
    if (record.status === 'running') return isOrphaned(record, now);
    if (record.status !== 'waiting') return false;
    const queued = (record.snapshot as { context?: GraphMachineContext } | null)?.context?.waiting?.queued;
    if (queued === undefined) return (await pendingReply(this.store, record)) !== undefined;
    if (queued.wakeAt !== null && queued.wakeAt <= now) return true;
    for (const child of queued.runs) {
      const run = await this.store.getRun(child.runId);
      if (run !== null && !FINISHED_STATUSES.has(run.status)) return false;
    }
    return true;
  }

  /**
   * Adds the job of a coordinator's specialist run as a child of the coordinator run's job (a
   * BullMQ flow: the parent job goes on once its children completed). The job is named by the
   * specialist run's id. `linked-elsewhere`: the job exists and waits under another job of the same
   * coordinator run, which goes on when it ends.
   */
  async addSpecialistJob(runId: string, parent: { id: string; queue: string }): Promise<'added' | 'linked-elsewhere'> {
    try {
      await (await this.#bull()).add(
        RUN_JOB,
        { runId },
        // A child whose job fails for good still lets the parent go on: the parent's join sees the run unfinished and adds it again.
        { jobId: runId, parent, removeOnComplete: true, removeOnFail: true, attempts: 5, backoff: { type: 'exponential', delay: 1000 }, ignoreDependencyOnFailure: true },
      );
      return 'added';
    } catch (cause) {
      // BullMQ's ParentJobCannotBeReplaced (-7): the job is a child of another job that still exists.
      if ((cause as { code?: unknown }).code === -7 || /cannot be replaced/i.test((cause as Error).message)) return 'linked-elsewhere';
      throw new QueueError(`cannot add the job of specialist run ${runId} to Redis at ${this.redisUrl}: ${(cause as Error).message}`, { code: 'queue_unavailable', cause });
    }
  }

  /** A job that continues `runId` at `at` (epoch ms): a coordinator's run looks at its specialists again when an attempt's time is up. */
  async wakeAt(runId: string, at: number): Promise<void> {
    await (await this.#bull()).add(RUN_JOB, { runId }, { jobId: `${runId}:wake:${at}`, delay: Math.max(0, at - Date.now()), removeOnComplete: true, removeOnFail: true });
  }

  /** Closes the connection to Redis (the store is the caller's to close). */
  async close(): Promise<void> {
    const queue = this.#queue;
    this.#queue = null;
    await (await queue)?.close();
  }

  /** BullMQ (and ioredis) are loaded when the first job is added: a process that never queues never loads them. */
  #bull(): Promise<Queue<RunJobData>> {
    this.#queue ??= import('bullmq').then(({ Queue }) => {
      const queue = new Queue<RunJobData>(this.name, { connection: this.#connection });
      // A connection error is reported by the call that needs Redis; the emitter must not crash the process.
      queue.on('error', () => {});
      return queue;
    });
    return this.#queue;
  }
}
