import { END } from '../graph/END.js';
import { costOf, priceFor, type PriceTable } from '../budget/PriceTable.js';
import { endState, START_STATE, type TransitionRecord } from './TransitionRecord.js';

/** The fields of an event the tracker reads: a live event or a stored one (its JSON form) alike. */
export interface TrackedEvent {
  type: string;
  runId: string;
  at: number;
  path: string;
  nodeId: string | null;
  [field: string]: unknown;
}

/** Prices a model call, for `costUsd`: USD for its input and output tokens, or undefined when unknown. */
export type CostOf = (model: string, inputTokens: number, outputTokens: number) => number | undefined;

/** How a tracker prices model calls: your own function, or a price table (your entries first, then the defaults budgets use). */
export interface CostOptions {
  costOf?: CostOf;
  prices?: Readonly<PriceTable>;
}

/** Prices a model call from the price tables budgets use: undefined for a model neither table names. */
export function priceTableCost(prices?: Readonly<PriceTable>): CostOf {
  return (model, input, output) => {
    const price = priceFor(model, prices);
    return price === null ? undefined : costOf(price, input, output);
  };
}

/** One run (or specialist run) being followed: where it is and what its current step spent. */
interface OpenRun {
  runId: string;
  workflow: string;
  path: string;
  /** The state the next transition leaves. */
  from: string;
  nodeType: string;
  startedAt: number | null;
  durationMs: number | null;
  tokens: number;
  costUsd: number | undefined;
  /** True once a model event of this step counted its tokens (the node's own usage is then not added). */
  modelUsage: boolean;
  /** The label of an edge to the end, kept until the run's final status is known. */
  endLabel: string | null;
}

type Usage = { inputTokens?: number; outputTokens?: number; totalTokens?: number } | null | undefined;

const tokensOf = (usage: Usage): number => (usage ? (usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0)) : 0);

/**
 * Turns a run's events, in order, into its {@link TransitionRecord}s: one from the start to the first
 * node, one per edge between nodes, and one from the last node to `__end__:<status>` when the run
 * (or a specialist run inside it) ends. It reads only envelopes, node ids, durations and token
 * counts, so it works on live events and on stored (redacted) ones alike, and follows specialist
 * runs, which share their parent's event stream, by their trace path. Events must arrive in `seq`
 * order; one tracker can follow any number of runs at once.
 *
 * @example
 * const tracker = new TransitionTracker((record) => records.push(record));
 * for (const event of await store.listEvents(runId)) tracker.push(event.data as TrackedEvent);
 */
export class TransitionTracker {
  readonly #emit: (record: TransitionRecord) => void;
  readonly #costOf: CostOf;
  readonly #open = new Map<string, OpenRun>();

  constructor(emit: (record: TransitionRecord) => void, options: CostOptions = {}) {
    this.#emit = emit;
    this.#costOf = options.costOf ?? priceTableCost(options.prices);
  }

  /** Follows one event. */
  push(event: TrackedEvent): void {
    switch (event.type) {
      case 'run.started':
        this.#begin(event, String(event.graph), START_STATE, 'start');
        this.#markParent(event.path, 'coordinator');
        return;
      case 'run.resumed': {
        const open = this.#open.get(this.#key(event));
        const at = typeof event.atNodeId === 'string' ? event.atNodeId : (open?.from ?? START_STATE);
        this.#begin(event, String(event.graph), at, event.cause === 'reply' ? 'human' : (open?.nodeType ?? 'node'));
        return;
      }
      case 'node.started':
        return this.#nodeStarted(event);
      case 'node.completed': {
        const open = this.#open.get(this.#key(event));
        if (open === undefined) return;
        if (typeof event.durationMs === 'number') open.durationMs = event.durationMs;
        if (!open.modelUsage) open.tokens += tokensOf((event.result as { usage?: Usage } | null)?.usage);
        return;
      }
      case 'model.request':
      case 'model.response':
        return this.#model(event);
      case 'run.waiting': {
        const open = this.#open.get(this.#key(event));
        if (open !== undefined) open.nodeType = 'human';
        return;
      }
      case 'node.failed':
      case 'node.cancelled':
      case 'route.failed': {
        const open = this.#open.get(this.#key(event));
        if (open !== undefined && open.durationMs === null && open.startedAt !== null) open.durationMs = Math.max(0, event.at - open.startedAt);
        return;
      }
      case 'edge.traversed':
        return this.#edge(event);
      case 'budget.exceeded':
        return this.#budget(event);
      case 'run.completed': {
        const status = (event.run as { status?: unknown } | null)?.status;
        return this.#end(this.#key(event), event.at, typeof status === 'string' ? status : 'unknown');
      }
      case 'specialist.completed':
        // Reported on the coordinator's path; the specialist ran under `<path>/<kind>[n]`.
        return this.#end(`${String(event.specialistRunId)}\u0000${event.path}/${String(event.kind)}[${Number(event.index) + 1}]`, event.at, String(event.status));
    }
  }

  #key(event: TrackedEvent): string {
    return `${event.runId}\u0000${event.path}`;
  }

  #begin(event: TrackedEvent, workflow: string, from: string, nodeType: string): void {
    this.#open.set(this.#key(event), {
      runId: event.runId,
      workflow,
      path: event.path,
      from,
      nodeType,
      startedAt: null,
      durationMs: null,
      tokens: 0,
      costUsd: undefined,
      modelUsage: false,
      endLabel: null,
    });
  }

  /** A specialist started: the node of its parent run that started it is a coordinator. */
  #markParent(path: string, nodeType: string): void {
    const slash = path.lastIndexOf('/');
    if (slash < 0) return;
    for (const open of this.#open.values()) if (open.path === path.slice(0, slash) && open.from !== START_STATE) open.nodeType = nodeType;
  }

  #nodeStarted(event: TrackedEvent): void {
    const open = this.#open.get(this.#key(event));
    if (open === undefined || event.nodeId === null) return;
    if (open.from === START_STATE) this.#record(open, event.nodeId, event.at, 'start');
    // A human node resumed after its reply starts again as the node it was.
    if (!(open.from === event.nodeId && open.nodeType === 'human')) open.nodeType = 'node';
    open.from = event.nodeId;
    open.startedAt = event.at;
    open.durationMs = null;
    open.tokens = 0;
    open.costUsd = undefined;
    open.modelUsage = false;
    open.endLabel = null;
  }

  #model(event: TrackedEvent): void {
    const open = this.#open.get(this.#key(event));
    if (open === undefined) return;
    if (open.nodeType === 'node') open.nodeType = 'agent';
    if (event.type !== 'model.response') return;
    const usage = event.usage as Usage;
    open.modelUsage = true;
    open.tokens += tokensOf(usage);
    const cost = this.#costOf(String(event.model), usage?.inputTokens ?? 0, usage?.outputTokens ?? 0);
    if (cost !== undefined) open.costUsd = (open.costUsd ?? 0) + cost;
  }

  #edge(event: TrackedEvent): void {
    const open = this.#open.get(this.#key(event));
    if (open === undefined) return;
    const kind = event.kind;
    const label = kind === 'conditional' ? String(event.routeKey ?? `group[${String(event.index)}]`) : kind === 'transition' ? `transition[${String(event.index)}]` : 'end';
    if (event.to === END) {
      open.endLabel = label;
      return;
    }
    this.#record(open, String(event.to), event.at, label);
    open.from = String(event.to);
    open.nodeType = 'node';
    open.startedAt = null;
  }

  /** A spent budget ends the run (its status says so) or sends it to the graph's `onBudgetExceeded` node. */
  #budget(event: TrackedEvent): void {
    const open = this.#open.get(this.#key(event));
    if (open === undefined) return;
    const label = `budget:${String(event.budget)}`;
    if (typeof event.handler !== 'string') {
      open.endLabel = label;
      return;
    }
    this.#record(open, event.handler, event.at, label);
    open.from = event.handler;
    open.nodeType = 'node';
    open.startedAt = null;
  }

  #end(key: string, at: number, status: string): void {
    const open = this.#open.get(key);
    if (open === undefined) return;
    this.#open.delete(key);
    this.#record(open, endState(status), at, open.endLabel ?? status);
  }

  #record(open: OpenRun, to: string, at: number, label: string): void {
    const start = open.from === START_STATE;
    const record: TransitionRecord = {
      runId: open.runId,
      workflow: open.workflow,
      from: open.from,
      to,
      at,
      durationMs: start ? 0 : (open.durationMs ?? (open.startedAt === null ? 0 : Math.max(0, at - open.startedAt))),
      tokens: start ? 0 : open.tokens,
      nodeType: start ? 'start' : open.nodeType,
      label,
      path: open.path,
    };
    if (!start && open.costUsd !== undefined) record.costUsd = open.costUsd;
    this.#emit(record);
  }
}
