import type { RunFilter, RunRecord, RunStore, StoredEvent } from '../../persistence/RunStore.js';
import { RunStateError } from '../../errors/RunStateError.js';
import type { AgentRequest } from '../AgentNode.js';
import type { RunOptions } from '../RunOptions.js';
import { toRunnableGraph, type RegisteredGraph, type RunnableGraph } from '../RunnableGraph.js';
import type { WorkflowRun } from '../WorkflowRun.js';
import { GraphDefinitionError } from '../../errors/GraphDefinitionError.js';
import { cancelRun } from './cancelRun.js';
import type { DurableOptions, ResumeOptions } from './DurableOptions.js';
import { recoverRuns, type RecoveryOutcome } from './recoverRuns.js';
import { resumeRun } from './resumeRun.js';
import { forkRun, type ForkOptions } from '../../history/forkRun.js';
import { findSpec } from '../machineSpecs.js';
import { readPath } from '../PathLog.js';

/** Options for {@link RunManager}. */
export interface RunManagerOptions extends Omit<DurableOptions, 'store'> {
  store: RunStore;
  /** The graphs (and typed workflows) this process can start, resume and recover, by name. */
  graphs: readonly RegisteredGraph[];
}

/**
 * Stored runs of a set of graphs, by run id: start, resume a waiting run with a reply, recover runs
 * whose process died, cancel, list and inspect. What the CLI and the workbench use.
 *
 * @example
 * const runs = new RunManager({ store: new SqliteRunStore(), graphs: [graph] });
 * const run = await runs.start('approval', 'refund 599 CNY');     // status 'waiting'
 * await runs.resume(run.runId, { reply: 'approved' });             // in this or another process
 */
export class RunManager {
  readonly store: RunStore;
  readonly #graphs: Map<string, RunnableGraph>;
  readonly #options: Omit<DurableOptions, 'store'>;

  constructor(options: RunManagerOptions) {
    this.store = options.store;
    this.#graphs = new Map(options.graphs.map((g) => [g.name, toRunnableGraph(g)]));
    this.#options = { ...(options.owner ? { owner: options.owner } : {}), ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}) };
  }

  /** A registered graph by name. */
  graph(name: string): RunnableGraph {
    const graph = this.#graphs.get(name);
    if (graph === undefined) {
      throw new GraphDefinitionError(`no graph named "${name}" is registered; known: ${[...this.#graphs.keys()].join(', ') || '(none)'}`);
    }
    return graph;
  }

  /** Starts a stored run of a registered graph. */
  start(graph: string, input: string | AgentRequest, options: Omit<RunOptions, 'store'> = {}): Promise<WorkflowRun> {
    return this.graph(graph).run(input, { ...this.#options, ...options, store: this.store });
  }

  /** Resumes a waiting run with a human reply (a run paused at a breakpoint goes on without one). */
  async resume(runId: string, event?: { reply: unknown }, options: Omit<ResumeOptions, 'store'> = {}): Promise<WorkflowRun> {
    const graph = await this.#graphOf(runId);
    const run = await resumeRun(graph, runId, event, { ...this.#options, ...options, store: this.store });
    if (run.status === 'waiting') graph.watchWait?.(runId, { ...this.#options, store: this.store });
    return run;
  }

  /**
   * Starts a new stored run from a step of a stored run, optionally with an edited state (see
   * `forkRun`); the parent is left as it is and named in the fork's run JSON.
   */
  async fork(runId: string, fork: ForkOptions, options: Omit<RunOptions, 'store'> = {}): Promise<WorkflowRun> {
    const graph = await this.#graphOf(runId);
    const run = await forkRun(graph, runId, fork, { ...this.#options, ...options, store: this.store });
    if (run.status === 'waiting') graph.watchWait?.(run.runId, { ...this.#options, store: this.store });
    return run;
  }

  /** Marks orphaned runs interrupted and continues them from their last checkpoint. */
  recover(options: Omit<ResumeOptions, 'store'> = {}): Promise<RecoveryOutcome[]> {
    return recoverRuns({ ...this.#options, ...options, store: this.store, graphs: [...this.#graphs.values()] });
  }

  /** Cancels a running, waiting or interrupted run. */
  cancel(runId: string): Promise<RunRecord> {
    return cancelRun(this.store, runId);
  }

  list(filter?: RunFilter): Promise<RunRecord[]> {
    return this.store.listRuns(filter);
  }

  async get(runId: string): Promise<RunRecord> {
    const record = await this.store.getRun(runId);
    if (record === null) throw new RunStateError(`run not found: ${runId}`, { code: 'run_not_found', runId });
    return record;
  }

  /**
   * The nodes a stored run ran, in order, read from its snapshot and named as its graph names them:
   * a typed workflow's step names (its structural nodes and waits left out, as in a run's `path`),
   * a graph's node ids. A run of a graph not registered here keeps the stored node ids.
   */
  pathOf(record: RunRecord): string[] {
    const ids = readPath((record.snapshot as { context?: { path?: unknown } } | null)?.context?.path);
    const graph = this.#graphs.get(record.graphName);
    let io;
    try {
      io = graph === undefined ? undefined : findSpec(graph.toMachine())?.io;
    } catch {
      // A graph that no longer compiles still lists its runs, by node id.
      return ids;
    }
    return io?.path === undefined ? ids : io.path(ids);
  }

  events(runId: string, afterSeq?: number): Promise<StoredEvent[]> {
    return this.store.listEvents(runId, afterSeq === undefined ? {} : { afterSeq });
  }

  async #graphOf(runId: string): Promise<RunnableGraph> {
    return this.graph((await this.get(runId)).graphName);
  }
}
