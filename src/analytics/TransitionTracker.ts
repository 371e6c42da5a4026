import { END } from '../graph/END.js';
import { costOf, priceFor, type PriceTable } from '../budget/PriceTable.js';
import { AnalyticsError } from '../errors/AnalyticsError.js';
import { describeValue } from '../graph/describeValue.js';
import { END_PREFIX, endState, START_STATE, type TransitionRecord } from './TransitionRecord.js';
import type { HopEvent, HopListener, HopTime } from '../trace/HopListener.js';
import type { TransitionRun } from './TransitionSink.js';
import type { TransitionSink } from './TransitionSink.js';
import { checkRecorderOptions, refuseOption } from './checkRecorderOptions.js';

/** The fields of an event the tracker reads: a live event or a stored one (its JSON form) alike. */
export interface TrackedEvent {
  type: string;
  runId: string;
  at: number;
  path: string;
  nodeId: string | null;
  [field: string]: unknown;
}

/**
 * Prices a model call, for `costUsd`: USD for its input and output tokens (a finite number ≥ 0), or
 * undefined when unknown. Anything else is an AnalyticsError `invalid_recorder_options` when it is returned.
 */
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
  /** The same three fields, as the one object its records share when kept in columns. */
  run: TransitionRun;
  /** The state the next transition leaves. */
  from: string;
  nodeType: string;
  /** When the current step started, NaN when unknown (a number field, so writing it allocates nothing). */
  startedAt: number;
  /** The current step's duration as its `node.completed` said, NaN until then. */
  durationMs: number;
  /** When the current step ended: the time of its `node.completed`, NaN until then. */
  endedAt: number;
  tokens: number;
  costUsd: number | undefined;
  /** True once a model event of this step counted its tokens (the node's own usage is then not added). */
  modelUsage: boolean;
  /** The label of an edge to the end, kept until the run's final status is known. */
  endLabel: string | null;
}

type Usage = { inputTokens?: number; outputTokens?: number; totalTokens?: number } | null | undefined;

/** Why an edge was taken: the route key a router answered, \`group[i]\` / \`transition[i]\`, or \`end\`. */
function edgeLabel(event: HopEvent): string {
  const key = event.routeKey;
  return stepLabel(event.kind as string, event.index as number, key === undefined || key === null ? undefined : String(key));
}

/** {@link edgeLabel} of an edge given by its fields. */
function stepLabel(kind: string, index: number, routeKey: string | undefined): string {
  if (kind === 'conditional') return routeKey !== undefined ? routeKey : indexed(GROUP_LABELS, 'group', index);
  return kind === 'transition' ? indexed(TRANSITION_LABELS, 'transition', index) : 'end';
}

/** Labels by index, made once (a loop takes the same edges again and again). */
const GROUP_LABELS: string[] = [];
const TRANSITION_LABELS: string[] = [];

function indexed(labels: string[], name: string, index: unknown): string {
  if (typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < 64) return (labels[index] ??= `${name}[${index}]`);
  return `${name}[${String(index)}]`;
}

/** A new step of `open` begins: what the step before it measured and spent is forgotten. */
function clearStep(open: OpenRun): void {
  open.durationMs = NaN;
  open.endedAt = NaN;
  open.tokens = 0;
  open.costUsd = undefined;
  open.modelUsage = false;
  open.endLabel = null;
}

const tokensOf = (usage: Usage): number => (usage ? (usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0)) : 0);

/**
 * Turns a run's events, in order, into its {@link TransitionRecord}s: one from the start to the first
 * node, one per edge between nodes, and one from the last node to `__end__:<status>` when the run
 * (or a specialist run inside it) ends. It reads only envelopes, node ids, durations and token
 * counts, so it works on live events and on stored (redacted) ones alike, and follows specialist
 * runs, which share their parent's event stream, by their trace path. A forked run's replayed steps
 * (see `forkRun`) make no record: they are its parent's. Events must arrive in `seq`
 * order; one tracker can follow any number of runs at once. Each record goes to a function, or
 * field by field to a {@link TransitionSink} (a `TransitionColumns` keeps it there) without an
 * object of its own.
 *
 * @example
 * const tracker = new TransitionTracker((record) => records.push(record));
 * for (const event of await store.listEvents(runId)) tracker.push(event.data as TrackedEvent);
 */
export class TransitionTracker implements HopListener {
  /** An edge to a node starts that node's step here (see `HopListener.startsFromEdges`): runs need not hand over the `node.started` after it. */
  readonly startsFromEdges = true;
  readonly #emit: ((record: TransitionRecord) => void) | null;
  readonly #sink: TransitionSink | null;
  readonly #costOf: CostOf;
  readonly #open = new Map<string, OpenRun>();
  /** The run the last event was about (a loop's events are almost all about one): found without a key. */
  #lastRunId = '';
  #lastPath = '';
  #last: OpenRun | undefined = undefined;
  /**
   * Forked runs still replaying their parent's steps (see `forkRun`), by run and path: how many of
   * the replayed steps have not ended yet. Those steps, the parent's start and a replayed human
   * node's wait are the parent's transitions, already counted with the parent: they make no record.
   */
  readonly #replaying = new Map<string, number>();

  constructor(emit: ((record: TransitionRecord) => void) | TransitionSink, options: CostOptions = {}) {
    const sink = typeof emit === 'function' ? null : isSink(emit) ? emit : refuseOption('new TransitionTracker(emit)', '', 'a function that takes each record, or a TransitionSink (a TransitionColumns, say)', emit);
    // Callers pass wider options (storedTransitions' graph and since): only the pricing is checked here.
    checkRecorderOptions(options, 'new TransitionTracker(emit, options)', null);
    this.#sink = sink;
    this.#emit = sink === null ? (emit as (record: TransitionRecord) => void) : null;
    this.#costOf = options.costOf ?? priceTableCost(options.prices);
  }

  /** The time of a stamped event, for {@link push}. */
  readonly #stampedAt = { at: 0, now(): number { return this.at; } };

  /** Follows one stamped event (live, or stored in its JSON form). */
  push(event: TrackedEvent): void {
    this.#stampedAt.at = event.at;
    this.hop(event, event.runId, event.path, this.#stampedAt);
  }

  /**
   * Follows one event handed over unstamped, with its run id, trace path and time beside it (the
   * light path runs take for a recorder with `hops`, see `HopListener`). {@link push} reads stamped
   * events through here, so both paths make the same records. The time is read for a node's
   * completion (runs hand it the reading that ended the node, so that costs no clock reading), a
   * run's first node, a failure, a spent budget and a run's end: an edge is timed by the completion
   * before it, and the step after it starts then.
   */
  hop(event: HopEvent, runId: string, path: string, time: HopTime): void {
    switch (event.type) {
      case 'run.started': {
        this.#begin(runId, path, String(event.graph), START_STATE, 'start');
        this.#markParent(path, 'coordinator');
        const forkedAt = (event.forkOf as { step?: unknown } | undefined)?.step;
        if (typeof forkedAt === 'number' && forkedAt > 0) this.#replaying.set(`${runId}\u0000${path}`, forkedAt);
        return;
      }
      case 'run.resumed': {
        const open = this.#find(runId, path);
        const from = typeof event.atNodeId === 'string' ? event.atNodeId : (open?.from ?? START_STATE);
        this.#begin(runId, path, String(event.graph), from, event.cause === 'reply' ? 'human' : (open?.nodeType ?? 'node'));
        // A fork going on among its parent's steps (a tracker that saw only this leg learns it here).
        const replaying = event.replaying;
        if (typeof replaying === 'number' && replaying > 0) this.#replaying.set(`${runId}\u0000${path}`, replaying);
        return;
      }
      case 'node.started':
        return this.#nodeStarted(this.#find(runId, path), event.nodeId ?? null, time);
      case 'node.completed': {
        const open = this.#find(runId, path);
        if (open === undefined) return;
        const durationMs = event.durationMs;
        // A wall clock set back during the step gives a negative duration: it took no time we can tell.
        if (typeof durationMs === 'number') open.durationMs = durationMs < 0 ? 0 : durationMs;
        // Runs give a node's completion the reading that ended its duration: no new reading here.
        open.endedAt = time.now();
        if (!open.modelUsage) open.tokens += tokensOf((event.result as { usage?: Usage } | null)?.usage);
        return;
      }
      case 'model.request':
      case 'model.response':
        return this.#model(this.#find(runId, path), event);
      case 'run.waiting': {
        const open = this.#find(runId, path);
        if (open !== undefined) open.nodeType = 'human';
        return;
      }
      case 'node.failed':
      case 'node.cancelled':
      case 'route.failed': {
        const open = this.#find(runId, path);
        if (open !== undefined && Number.isNaN(open.durationMs) && !Number.isNaN(open.startedAt)) open.durationMs = Math.max(0, time.now() - open.startedAt);
        return;
      }
      case 'edge.traversed':
        return this.#edge(this.#find(runId, path), event, time);
      case 'budget.exceeded':
        return this.#budget(this.#find(runId, path), event, time);
      case 'run.completed': {
        const status = (event.run as { status?: unknown } | null)?.status;
        return this.#end(runId, path, time, typeof status === 'string' ? status : 'unknown');
      }
      case 'specialist.completed':
        // Reported on the coordinator's path; the specialist ran under `<path>/<kind>[n]`.
        return this.#end(String(event.specialistRunId), `${path}/${String(event.kind)}[${Number(event.index) + 1}]`, time, String(event.status));
    }
  }

  /**
   * A step's `node.completed` and the `edge.traversed` to another node after it, in one call (see
   * `HopListener.step`): the same record as the two events handed to {@link hop} make.
   */
  step(runId: string, path: string, _nodeId: string, at: number, durationMs: number, result: unknown, to: string, kind: string, index: number, routeKey: string | undefined): void {
    const open = this.#find(runId, path);
    if (open === undefined) return;
    open.durationMs = durationMs < 0 ? 0 : durationMs;
    if (!open.modelUsage) open.tokens += tokensOf((result as { usage?: Usage } | null)?.usage);
    // The edge is taken when its step ended; the next step starts then.
    this.#record(open, to, at, stepLabel(kind, index, routeKey));
    open.from = to;
    open.nodeType = 'node';
    open.startedAt = at;
    clearStep(open);
  }

  /** The open run of `runId` at `path`, if any. */
  #find(runId: string, path: string): OpenRun | undefined {
    if (this.#last !== undefined && runId === this.#lastRunId && path === this.#lastPath) return this.#last;
    const open = this.#open.get(`${runId}\u0000${path}`);
    if (open !== undefined) {
      this.#lastRunId = runId;
      this.#lastPath = path;
      this.#last = open;
    }
    return open;
  }

  #begin(runId: string, path: string, workflow: string, from: string, nodeType: string): void {
    this.#last = undefined;
    this.#open.set(`${runId}\u0000${path}`, {
      runId,
      workflow,
      path,
      run: { runId, workflow, path },
      from,
      nodeType,
      startedAt: NaN,
      durationMs: NaN,
      endedAt: NaN,
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

  #nodeStarted(open: OpenRun | undefined, nodeId: string | null, time: HopTime): void {
    if (open === undefined || nodeId === null) return;
    // A step taken by an edge started when the edge was taken (its time is known); only the first
    // step, or one after a resume or a budget's detour, reads the clock.
    if (open.from === START_STATE) {
      const at = time.now();
      this.#record(open, nodeId, at, 'start');
      open.startedAt = at;
    } else if (Number.isNaN(open.startedAt)) {
      open.startedAt = time.now();
    }
    // A human node resumed after its reply starts again as the node it was.
    if (!(open.from === nodeId && open.nodeType === 'human')) open.nodeType = 'node';
    open.from = nodeId;
    clearStep(open);
  }

  #model(open: OpenRun | undefined, event: HopEvent): void {
    if (open === undefined) return;
    if (open.nodeType === 'node') open.nodeType = 'agent';
    if (event.type !== 'model.response') return;
    const usage = event.usage as Usage;
    open.modelUsage = true;
    open.tokens += tokensOf(usage);
    const model = String(event.model);
    const input = usage?.inputTokens ?? 0;
    const output = usage?.outputTokens ?? 0;
    const cost: unknown = this.#costOf(model, input, output);
    if (cost === undefined) return;
    // A cost that is no price would make a record no reader takes (NaN is written as null): refused here, where its cause is known.
    if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0) {
      throw new AnalyticsError(
        `costOf(${JSON.stringify(model)}, ${input}, ${output}) returned ${describeValue(cost)}; it must return USD as a finite number ≥ 0, or undefined when the model's price is unknown`,
        'invalid_recorder_options',
      );
    }
    open.costUsd = (open.costUsd ?? 0) + cost;
  }

  #edge(open: OpenRun | undefined, event: HopEvent, time: HopTime): void {
    if (open === undefined) return;
    const label = edgeLabel(event);
    const to = event.to;
    if (to === END) {
      open.endLabel = label;
      return;
    }
    const next = typeof to === 'string' ? to : String(to);
    // The edge is taken when its step ended (the time of its node.completed): no clock reading.
    const at = Number.isNaN(open.endedAt) ? time.now() : open.endedAt;
    this.#record(open, next, at, label);
    // The next step starts here, as its node.started would start it (runs may leave that event out).
    open.from = next;
    open.nodeType = 'node';
    open.startedAt = at;
    clearStep(open);
  }

  /** A spent budget ends the run (its status says so) or sends it to the graph's `onBudgetExceeded` node. */
  #budget(open: OpenRun | undefined, event: HopEvent, time: HopTime): void {
    if (open === undefined) return;
    const label = `budget:${String(event.budget)}`;
    if (typeof event.handler !== 'string') {
      open.endLabel = label;
      return;
    }
    this.#record(open, event.handler, time.now(), label);
    open.from = event.handler;
    open.nodeType = 'node';
    open.startedAt = NaN;
  }

  #end(runId: string, path: string, time: HopTime, status: string): void {
    const key = `${runId}\u0000${path}`;
    const open = this.#open.get(key);
    if (open === undefined) return;
    this.#open.delete(key);
    this.#last = undefined;
    this.#record(open, endState(status), time.now(), open.endLabel ?? status);
  }

  #record(open: OpenRun, to: string, at: number, label: string): void {
    const start = open.from === START_STATE;
    // The edge that ends a fork's last replayed step is the fork's own (its edited state chose it),
    // but its node's work, tokens and cost were the parent's.
    const replayed = this.#replaying.size !== 0 && this.#replayedStep(open, to, start);
    if (replayed === null) return;
    const durationMs = start ? 0 : !Number.isNaN(open.durationMs) ? open.durationMs : Number.isNaN(open.startedAt) ? 0 : Math.max(0, at - open.startedAt);
    const tokens = start || replayed ? 0 : open.tokens;
    const nodeType = start ? 'start' : open.nodeType;
    const costUsd = start || replayed ? undefined : open.costUsd;
    if (this.#sink !== null) return this.#sink.add(open.run, open.from, to, at, durationMs, tokens, costUsd, nodeType, label);
    const record: TransitionRecord = { runId: open.runId, workflow: open.workflow, from: open.from, to, at, durationMs, tokens, nodeType, label, path: open.path };
    if (costUsd !== undefined) record.costUsd = costUsd;
    this.#emit!(record);
  }

  /**
   * For a fork replaying its parent's steps: null when the transition is the parent's (no record),
   * true for the edge that ends the last replayed step or a run still replaying, false for one of the fork's own.
   */
  #replayedStep(open: OpenRun, to: string, start: boolean): boolean | null {
    const key = `${open.runId}\u0000${open.path}`;
    const left = this.#replaying.get(key);
    if (left === undefined) return false;
    if (start || to === WAITING) return null;
    if (to.startsWith(END_PREFIX)) {
      // Ended while replaying (a fork whose routing went another way fails, or whose maxSteps or
      // budget ran out first): that end is its own, but the step it leaves was replayed (its tokens
      // and cost the parent's) or never ran.
      this.#replaying.delete(key);
      return true;
    }
    if (left > 1) {
      this.#replaying.set(key, left - 1);
      return null;
    }
    this.#replaying.delete(key);
    return true;
  }
}

const WAITING = endState('waiting');

function isSink(value: unknown): value is TransitionSink {
  return typeof value === 'object' && value !== null && typeof (value as { add?: unknown }).add === 'function';
}
