import type { Job, Worker } from 'bullmq';
import type { RunStore } from '../persistence/RunStore.js';
import { toRunnableGraph, type RegisteredGraph, type RunnableGraph } from '../graph/RunnableGraph.js';
import { DEFAULT_LEASE_MS } from '../graph/durable/DurableOptions.js';
import { newOwnerId, ownedBy } from '../graph/durable/owner.js';
import { advanceRun, type LegOutcome } from './advanceRun.js';
import { QueueError } from './QueueError.js';
import { redisConnection, type RedisConnection } from './redisConnection.js';
import { RunQueue, queueNameOf } from './RunQueue.js';
import type { RunJobData } from './runJob.js';
import { FINISHED_STATUSES } from '../persistence/RunStore.js';
import type { QueuedSpecialist } from '../graph/GraphMachineContext.js';
import { specialistParentOf, type SpecialistRuns } from '../graph/SpecialistRuns.js';
import { withSpecialistGraphs } from './specialistGraphs.js';
import { storedSpecialistRuns } from './storedSpecialistRuns.js';

/** Options for {@link RunWorker}. */
export interface RunWorkerOptions {
  /** The run store the queue writes to (a `PostgresRunStore` shared by every worker). */
  store: RunStore;
  /** The graphs this worker can run, by name: the same module as the queue's. */
  graphs: readonly RegisteredGraph[];
  /** Where Redis is (default `$SWITCHBOARD_REDIS_URL`). */
  redisUrl?: string;
  /** The queue's name (default `$SWITCHBOARD_QUEUE`, else `switchboard-runs`). */
  queueName?: string;
  /** Runs advanced at once by this worker (default 1). */
  concurrency?: number;
  /**
   * This worker's owner id (default `host/pid/random`, a new one per worker). Each leg it runs
   * holds its run's lease under an id of its own made from it, `owner/leg-n`, so a run's row names
   * the leg that holds it; keep `host/pid` first in an id of your own, so a run whose process on
   * this host died is taken over without waiting for its lease.
   */
  owner?: string;
  /** How long a run's lease lasts without renewal (default 30 s). A dead worker's runs on another host wait this long. */
  leaseMs?: number;
  /**
   * How long BullMQ's job lock lasts without renewal (default 30 s): a worker that dies holding a
   * job gives it back after this; stalled jobs are looked for every half of it.
   */
  lockMs?: number;
  /** How often the worker sweeps for runs without a job (default 30 s; 0: never). */
  sweepEveryMs?: number;
  /** Called after every job, with what was done (for logs; a throw is ignored). */
  onOutcome?: (outcome: LegOutcome) => void;
  /** Called with errors the worker survives (a lost Redis connection, a job that failed and is retried). */
  onError?: (error: Error) => void;
  /** For tests of lock loss only: never renew the BullMQ lock, so another worker's stalled check takes the job. */
  renewLocks?: boolean;
  /**
   * Run a coordinator's specialists as child jobs (default true): each task becomes a stored run
   * of its own that any worker advances, and the coordinator's run waits (stored, its lease let go)
   * until they have ended. False: they run inside the coordinator run's job, as in process.
   */
  specialistJobs?: boolean;
}

/**
 * Takes run jobs from the queue and advances each run from its stored snapshot until it ends or
 * waits, checkpointing to the store as any stored run does (`advanceRun`). A worker that dies
 * loses its BullMQ lock and its run's lease: another worker's stalled check gives the job back and
 * the run continues from its last checkpoint; side-effecting tools go through the journal. A
 * worker that is slow but alive keeps its lease, so a second worker given the same run waits for it.
 *
 * @example
 * const worker = new RunWorker({ store: new PostgresRunStore(), graphs, concurrency: 4 });
 * await worker.start();
 * process.once('SIGTERM', () => void worker.close());
 */
export class RunWorker {
  /** This worker's owner id; the legs it runs hold their runs as `owner/leg-n`. */
  readonly owner: string;
  readonly #options: RunWorkerOptions;
  readonly #graphs: Map<string, RunnableGraph>;
  readonly #connection: RedisConnection;
  readonly #queue: RunQueue;
  readonly #name: string;
  #worker: Worker<RunJobData> | null = null;
  #sweeper: NodeJS.Timeout | null = null;
  #sweeping = false;
  #delayed: (new () => Error) | null = null;
  /** The runs whose jobs this worker is processing now, each with its count of jobs (two legs of one run can overlap). */
  readonly #active = new Map<string, number>();
  #waitingChildren: (new () => Error) | null = null;
  readonly #specialists: SpecialistRuns | null;

  constructor(options: RunWorkerOptions) {
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1000) {
      throw new QueueError(`RunWorker: concurrency must be a whole number from 1 to 1000; received ${String(options.concurrency)}`, { code: 'queue_config' });
    }
    for (const key of ['leaseMs', 'lockMs', 'sweepEveryMs'] as const) {
      const value = options[key];
      if (value !== undefined && (!Number.isInteger(value) || value < (key === 'sweepEveryMs' ? 0 : 100))) {
        throw new QueueError(`RunWorker: ${key} must be a whole number of milliseconds (at least ${key === 'sweepEveryMs' ? 0 : 100}); received ${String(value)}`, { code: 'queue_config' });
      }
    }
    this.#options = { ...options, concurrency };
    this.owner = options.owner ?? newOwnerId();
    this.#connection = redisConnection(options.redisUrl, 'RunWorker');
    this.#name = queueNameOf(options.queueName);
    // A coordinator's specialists run as jobs of their own: the worker advances their graphs too.
    this.#graphs = withSpecialistGraphs(options.graphs.map(toRunnableGraph));
    this.#specialists = options.specialistJobs === false ? null : storedSpecialistRuns(options.store);
    this.#queue = new RunQueue({ store: options.store, graphs: options.graphs, redisUrl: this.#connection.url, queueName: this.#name });
  }

  /** Starts taking jobs; resolves once connected to Redis. */
  async start(): Promise<void> {
    if (this.#worker !== null) return;
    const lockMs = this.#options.lockMs ?? 30_000;
    const { Worker, DelayedError, WaitingChildrenError } = await import('bullmq');
    this.#delayed = DelayedError;
    this.#waitingChildren = WaitingChildrenError;
    const worker = new Worker<RunJobData>(this.#name, (job, token) => this.#process(job, token), {
      connection: this.#connection,
      concurrency: this.#options.concurrency ?? 1,
      lockDuration: lockMs,
      stalledInterval: Math.max(100, Math.floor(lockMs / 2)),
      // The store decides whether a run may go on, not a count of stalls: a run whose workers keep dying is still continued.
      maxStalledCount: 1000,
      skipLockRenewal: this.#options.renewLocks === false,
      // After a lost connection BullMQ waits this long before it asks Redis for jobs again (15 s by
      // default): a worker whose blocking fetch failed when Redis went down then sat idle for 15 s
      // after Redis came back, while its peers took every job. Commands wait for the reconnection
      // anyway (maxRetriesPerRequest: null), so a short delay costs nothing while Redis is down.
      runRetryDelay: 1000,
      removeOnComplete: { count: 0 },
      removeOnFail: { count: 0 },
    });
    worker.on('error', (error) => this.#report(error));
    worker.on('failed', (_job, error) => this.#report(error));
    this.#worker = worker;
    await worker.waitUntilReady();
    const every = this.#options.sweepEveryMs ?? 30_000;
    if (every > 0) {
      // Runs stored while no job could be added (Redis was down or restarted empty) get one now.
      this.#sweep();
      this.#sweeper = setInterval(() => this.#sweep(), every);
      this.#sweeper.unref();
    }
  }

  /**
   * Stops taking jobs and waits for the legs in progress to end or wait (checkpointed as always),
   * then closes the connections. `force` does not wait: the runs in progress are given back when
   * their lock and lease run out, and continue from their last checkpoint elsewhere.
   */
  async close(force = false): Promise<void> {
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
    await this.#worker?.close(force);
    this.#worker = null;
    await this.#queue.close();
  }

  /**
   * Stops at once and hands back the runs in progress: each run this worker holds is marked
   * interrupted with its lease released (a compare-and-set, so a checkpoint of the leg still in
   * flight here is refused from then on) and gets a new job, taken no sooner than `delayMs`
   * (default 1 s) so the caller can end this process before another worker starts the run from its
   * last checkpoint. The caller must end the process right after (the legs' nodes may still be
   * running in it); `switchboard worker` does so on a second SIGTERM. Resolves to the runs handed back.
   */
  async handBack(options: { delayMs?: number } = {}): Promise<string[]> {
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
    const worker = this.#worker;
    this.#worker = null;
    // Take no more jobs; the active ones' locks are left to run out (their runs get new jobs below).
    void worker?.close(true).catch((error: Error) => this.#report(error));
    const handed: string[] = [];
    for (const runId of [...this.#active.keys()]) {
      for (let attempt = 0; attempt < 4; attempt++) {
        const record = await this.#options.store.getRun(runId);
        // Held by one of this worker's legs (each has an owner id of its own under the worker's).
        if (record === null || record.status !== 'running' || !ownedBy(record.owner, this.owner)) break;
        const version = await this.#options.store.updateRun(runId, record.version, { status: 'interrupted', owner: null, leaseExpiresAt: null });
        if (version === null) continue;
        await this.#queue.enqueue({ runId, status: 'interrupted', version }, { delayMs: options.delayMs ?? 1000 });
        handed.push(runId);
        break;
      }
    }
    await this.#queue.close();
    return handed;
  }

  async #process(job: Job<RunJobData>, token: string | undefined): Promise<string> {
    const runId = job.data.runId;
    this.#active.set(runId, (this.#active.get(runId) ?? 0) + 1);
    try {
      return await this.#processRun(job, token);
    } finally {
      const left = (this.#active.get(runId) ?? 1) - 1;
      if (left > 0) this.#active.set(runId, left);
      else this.#active.delete(runId);
    }
  }

  async #processRun(job: Job<RunJobData>, token: string | undefined): Promise<string> {
    const runId = job.data.runId;
    if (job.data.deadline !== undefined) {
      // A wait's deadline: keep the TIMEOUT reply if the run still waits there, then advance it as for a reply.
      const due = await this.#queue.timeOut(runId, job.data.deadline);
      if (due === 'moved') return 'nothing';
      if (due === 'early') {
        await job.moveToDelayed(job.data.deadline, token);
        throw new this.#delayed!();
      }
    }
    // A coordinator run whose specialists all ended before its job could wait for them goes on at once (a few times at most).
    for (let round = 0; ; round++) {
      const outcome = await advanceRun(runId, {
        store: this.#options.store,
        graphs: this.#graphs,
        owner: this.owner,
        leaseMs: this.#options.leaseMs ?? DEFAULT_LEASE_MS,
        ...(this.#specialists === null ? {} : { specialistRuns: this.#specialists }),
      });
      if ((outcome.outcome === 'advanced' && outcome.run.status === 'waiting') || (outcome.outcome === 'nothing' && job.data.deadline === undefined)) {
        // A wait with a deadline times out by a delayed job, whichever worker is alive then (also
        // armed when a retried job finds the run already waiting: the first try may have died here).
        const record = await this.#options.store.getRun(runId);
        if (record !== null) await this.#queue.armDeadline(record);
      }
      try {
        this.#options.onOutcome?.(outcome);
      } catch {
        // A logger's failure must not fail the job.
      }
      if (outcome.outcome === 'held') {
        // A living owner runs it: look again once its lease would have run out.
        await job.moveToDelayed(Math.max(Date.now() + 100, outcome.until + 100), token);
        throw new this.#delayed!();
      }
      const queued = outcome.outcome === 'advanced' ? outcome.run.waiting?.queued : undefined;
      if (queued !== undefined) {
        const parked = await this.#park(job, token, runId, queued);
        if (parked === 'waiting-children') throw new this.#waitingChildren!();
        if (parked === 'go-on' && round < 5) continue;
        return 'waiting';
      }
      if (outcome.outcome === 'advanced' && job.parent === undefined) await this.#wakeParent(runId);
      return outcome.outcome === 'advanced' ? outcome.run.status : 'nothing';
    }
  }

  /**
   * The run waits for its specialists on the queue: their jobs are added as children of this job
   * (each named by its run, so adding it again is harmless), and this job waits for them (BullMQ's
   * waiting-children state: no lock, no worker held). When they have all completed, BullMQ gives
   * this job back to a worker and the run goes on. A specialist run that needs no job (it ended, or
   * waits for a person) gets none; `go-on`: every specialist has ended already.
   */
  async #park(job: Job<RunJobData>, token: string | undefined, runId: string, queued: { runs: QueuedSpecialist[]; wakeAt: number | null }): Promise<'waiting-children' | 'go-on' | 'stop'> {
    const store = this.#options.store;
    const parent = { id: job.id!, queue: job.queueQualifiedName };
    let open = 0;
    for (const child of queued.runs) {
      const record = await store.getRun(child.runId);
      if (record === null || FINISHED_STATUSES.has(record.status)) continue;
      open += 1;
      if (await this.#queue.needsJob(record)) await this.#queue.addSpecialistJob(child.runId, parent);
    }
    if (open === 0) return 'go-on';
    // An attempt's deadline: the run looks at its specialists again then, ended or not.
    if (queued.wakeAt !== null) await this.#queue.wakeAt(runId, queued.wakeAt);
    if (await job.moveToWaitingChildren(token!)) return 'waiting-children';
    // No child job left pending under this job: they completed meanwhile, wait under another job of this run, or wait for a person.
    for (const child of queued.runs) {
      const record = await store.getRun(child.runId);
      if (record !== null && !FINISHED_STATUSES.has(record.status)) return 'stop';
    }
    return 'go-on';
  }

  /**
   * A specialist run advanced by a job that is no child of its coordinator's (a reply given to
   * it, a recovery by the sweep): once every specialist of the coordinator run's wait has ended,
   * the coordinator run gets a job.
   */
  async #wakeParent(runId: string): Promise<void> {
    const parentId = specialistParentOf(runId);
    if (parentId === null) return;
    const parent = await this.#options.store.getRun(parentId);
    if (parent === null || parent.status !== 'waiting' || !(await this.#queue.needsJob(parent))) return;
    await this.#queue.enqueue(parent);
  }

  /**
   * One sweep, unless the last one has not ended: while Redis is down its commands wait for the
   * reconnection, and sweeps started meanwhile would all land at once when it comes back.
   */
  #sweep(): void {
    if (this.#sweeping) return;
    this.#sweeping = true;
    void this.#queue
      .sweep()
      .catch((error: Error) => this.#report(error))
      .finally(() => (this.#sweeping = false));
  }

  #report(error: Error): void {
    if (this.#delayed !== null && error instanceof this.#delayed) return;
    if (this.#waitingChildren !== null && error instanceof this.#waitingChildren) return;
    try {
      this.#options.onError?.(error);
    } catch {
      // ignored, as above
    }
  }
}
