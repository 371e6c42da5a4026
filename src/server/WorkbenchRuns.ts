import { randomUUID } from 'node:crypto';
import type { BudgetOptions } from '../budget/Budget.js';
import type { Breakpoints } from '../graph/Breakpoints.js';
import type { AgentRequest } from '../graph/AgentNode.js';
import type { RunManager } from '../graph/durable/RunManager.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';
import type { WorkflowRun } from '../graph/WorkflowRun.js';
import type { RunRecord } from '../persistence/RunStore.js';
import type { TraceRecorder } from '../trace/TraceRecorder.js';
import { RunStateError } from '../errors/RunStateError.js';
import { statusOf } from './errorResponse.js';
import type { ForkOptions } from '../history/forkRun.js';
import type { RunHub } from './RunHub.js';
import type { RunQueue } from '../queue/RunQueue.js';
import { ServerError } from './ServerError.js';
import { DrainTimeoutError } from './DrainTimeoutError.js';

/** A run started or resumed by the workbench: its id, and the whole leg's outcome when asked to wait. */
export interface LegStarted {
  runId: string;
  run?: WorkflowRun;
  /** True when the leg was handed to the run queue (a worker runs it), not run in this process. */
  queued?: boolean;
}

/**
 * Starts, resumes and cancels stored runs for the HTTP API. Legs run in the background with the
 * hub as one of their recorders (it gets the events the run redacted once for its store); a call
 * returns once the run is stored (start) or claimed (resume), or, with `wait`, once the leg ended
 * or waits. With a run queue (the distributed mode), starts, resumes and cancels go through it
 * instead: the call returns once the run and its job are written, a worker runs the leg, and the
 * run's events reach subscribers from the store.
 */
export class WorkbenchRuns {
  readonly manager: RunManager;
  readonly hub: RunHub;
  readonly graphs: readonly RunnableGraph[];
  readonly defaultGraph: string | undefined;
  /** The run queue legs go to, or null (the embedded mode: legs run in this process). */
  readonly queue: RunQueue | null;
  /** Legs still executing, each with its run's id. */
  readonly #legs = new Map<Promise<unknown>, string>();
  readonly #onLegError: (runId: string, error: unknown) => void;

  constructor(options: { manager: RunManager; hub: RunHub; graphs: readonly RunnableGraph[]; defaultGraph?: string; queue?: RunQueue; onLegError?: (runId: string, error: unknown) => void }) {
    this.manager = options.manager;
    this.queue = options.queue ?? null;
    this.hub = options.hub;
    this.graphs = options.graphs;
    this.defaultGraph = options.defaultGraph ?? options.graphs[0]?.name;
    this.#onLegError = options.onLegError ?? (() => undefined);
  }

  /** A registered graph by name (default: the default graph). */
  graph(name?: string): RunnableGraph {
    const wanted = name ?? this.defaultGraph;
    const graph = this.graphs.find((g) => g.name === wanted);
    if (graph === undefined) {
      throw new ServerError(`no graph named "${wanted ?? ''}" is registered; known: ${this.graphs.map((g) => g.name).join(', ') || '(none)'}`, { code: 'not_found' });
    }
    return graph;
  }

  /** Legs still executing. */
  get activeLegs(): number {
    return this.#legs.size;
  }

  /** Starts a stored run; resolves once its row exists (or, with `wait`, once the leg ended). */
  async start(graphName: string | undefined, request: AgentRequest, options: { wait?: boolean; budget?: BudgetOptions; breakpoints?: Breakpoints } = {}): Promise<LegStarted> {
    const graph = this.graph(graphName);
    if (this.queue !== null) {
      this.#queueRefuses(options.wait === true, '?wait');
      this.#queueRefuses(options.breakpoints !== undefined, 'breakpoints');
      const runId = await this.queue.start(graph.name, request, options.budget === undefined ? {} : { budget: options.budget });
      this.hub.poke(runId);
      return { runId, queued: true };
    }
    const runId = randomUUID();
    const recorders = [this.hub.attach(runId)];
    const budget = options.budget === undefined ? {} : { budget: options.budget };
    const breakpoints = options.breakpoints === undefined ? {} : { breakpoints: options.breakpoints };
    const leg = this.#track(runId, () => this.manager.start(graph.name, request, { runId, recorders, ...budget, ...breakpoints }));
    if (options.wait) return { runId, run: await leg };
    await this.#untilStored(runId, leg);
    return { runId };
  }

  /** Resumes a waiting run with a reply (none: a run paused at a breakpoint goes on); resolves once the run is claimed (or, with `wait`, once the leg ended). */
  async resume(runId: string, reply: unknown, options: { wait?: boolean } = {}): Promise<LegStarted> {
    if (this.queue !== null) {
      this.#queueRefuses(options.wait === true, '?wait');
      this.#queueRefuses(reply === undefined, 'going on from a breakpoint without a reply');
      await this.queue.resume(runId, reply);
      this.hub.poke(runId);
      return { runId, queued: true };
    }
    if (this.hub.isLive(runId)) {
      throw new RunStateError(`run ${runId} is running in this server right now, not waiting for a reply`, { code: 'run_not_waiting', runId });
    }
    const hubRecorder = this.hub.attach(runId);
    let claimed!: () => void;
    const firstEvent = new Promise<void>((resolve) => (claimed = resolve));
    const recorder: TraceRecorder = {
      record: (event) => {
        claimed();
        hubRecorder.record(event);
      },
    };
    const leg = this.#track(runId, () => this.manager.resume(runId, reply === undefined ? undefined : { reply }, { recorders: [recorder] }));
    if (options.wait) return { runId, run: await leg };
    await Promise.race([firstEvent, leg]);
    return { runId };
  }

  /** Forks a stored run at a step (see `forkRun`); resolves once the fork is stored (or, with `wait`, once its leg ended). */
  async fork(parentRunId: string, fork: ForkOptions, options: { wait?: boolean } = {}): Promise<LegStarted> {
    const runId = randomUUID();
    const recorders = [this.hub.attach(runId)];
    const leg = this.#track(runId, () => this.manager.fork(parentRunId, fork, { runId, recorders }));
    if (options.wait) return { runId, run: await leg };
    await this.#untilStored(runId, leg);
    return { runId };
  }

  /** Cancels a running, waiting or interrupted run and tells its subscribers. */
  async cancel(runId: string): Promise<RunRecord> {
    const record = this.queue !== null ? await this.queue.cancel(runId) : await this.manager.cancel(runId);
    this.hub.poke(runId);
    return record;
  }

  /**
   * Waits until every leg started here before the call has ended. Rejects with a
   * {@link DrainTimeoutError} naming the runs whose legs are still going if `timeoutMs` passes
   * first; they are not stopped.
   */
  async drain(timeoutMs = 10_000): Promise<void> {
    const legs = [...this.#legs.keys()];
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled(legs), timeout]);
    clearTimeout(timer);
    const going = legs.filter((leg) => this.#legs.has(leg)).map((leg) => this.#legs.get(leg)!);
    if (going.length > 0) throw new DrainTimeoutError([...new Set(going)], timeoutMs);
  }

  #queueRefuses(asked: boolean, what: string): void {
    if (asked) {
      throw new ServerError(`${what} is not available in the distributed mode (SWITCHBOARD_REDIS_URL is set): a worker runs the leg; follow GET /api/runs/:runId/stream for its events`, { code: 'bad_request' });
    }
  }

  #track(runId: string, begin: () => Promise<WorkflowRun>): Promise<WorkflowRun> {
    let leg: Promise<WorkflowRun>;
    try {
      leg = begin();
    } catch (error) {
      leg = Promise.reject(error);
    }
    const tracked = leg
      .catch((error: unknown) => {
        // Refusals (a run not waiting, not found, an input or a state the run refuses: answered 4xx)
        // reach the caller; anything else is reported here too.
        if (!(error instanceof RunStateError) && statusOf(error) >= 500) this.#onLegError(runId, error);
      })
      .finally(() => this.hub.detach(runId))
      .finally(() => this.#legs.delete(tracked));
    this.#legs.set(tracked, runId);
    return leg;
  }

  async #untilStored(runId: string, leg: Promise<WorkflowRun>): Promise<void> {
    let settled = false;
    let failure: unknown = null;
    leg.then(
      () => (settled = true),
      (error: unknown) => {
        settled = true;
        failure = error;
      },
    );
    for (let attempt = 0; ; attempt++) {
      if ((await this.manager.store.getRun(runId)) !== null) return;
      if (settled) {
        if (failure !== null) throw failure;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 ** attempt)));
    }
  }
}
