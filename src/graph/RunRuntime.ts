import { SharedState } from './SharedState.js';
import { StateModel } from '../state/StateModel.js';
import { WorkflowContext, type Journal } from './WorkflowContext.js';
import type { EngineEvent, EventEnvelope, ForkLink, WorkflowEvent } from './WorkflowEvent.js';
import { systemClock, type Clock } from './RunOptions.js';
import { guardClock } from './guardClock.js';
import { EventTime } from './EventTime.js';
import type { SwitchboardError } from '../errors/SwitchboardError.js';
import { newTraceContext, type TraceContext } from '../trace/TraceContext.js';
import type { TraceRecorder } from '../trace/TraceRecorder.js';
import { EventSink } from './EventSink.js';
import { ReusedEvents } from './ReusedEvents.js';
import type { HopEvent } from '../trace/HopListener.js';
import type { CallbackError, CallbackKind } from '../errors/CallbackError.js';
import type { NodeCall } from './NodeCall.js';
import type { NodeEmit } from './AgentNode.js';
import type { BudgetMeter } from '../budget/BudgetMeter.js';
import type { StepRunner } from '../steps/StepRunner.js';
import type { WaitingInfo } from './GraphMachineContext.js';
import type { SpecialistRuns } from './SpecialistRuns.js';

/** Distributes an event type over a union, so each member loses its envelope separately. */
type WithoutEnvelope<T> = T extends unknown ? Omit<T, keyof EventEnvelope> & { nodeId?: string } : never;

/** An event before the runtime stamps its envelope (`nodeId` only for node events). */
export type PendingEvent = WithoutEnvelope<EngineEvent> | { type: string; nodeId: string; [field: string]: unknown };

/**
 * What a run needs that cannot live in the JSON machine context: the live state map, the session,
 * the event sink, the clock and the thrown errors (with their causes). One per machine actor.
 */
export class RunRuntime {
  readonly session: unknown;
  readonly streaming: boolean;
  readonly clock: Clock;
  /** The real error behind a `failed` run; the context only holds its JSON form. */
  error: SwitchboardError | null = null;
  /** Side-effect journal of a stored run. */
  readonly journal: Journal | null;
  /** Resolves when pending checkpoint writes are done; nodes wait for it before they start. */
  barrier: () => Promise<void> = noBarrier;
  readonly #sink: EventSink;
  /** The run's id when this runtime starts it (callback failures before its first event are reported under it). */
  #runId: string | null = null;
  /** A runtime for a specialist run started by this one: same listeners and counter, same clock, no session. */
  child(): RunRuntime {
    const child = new RunRuntime({ parent: this, clock: this.clock, streaming: this.streaming, journal: this.journal });
    child.direct = this.direct;
    return child;
  }

  /**
   * True for a run held in memory from its start: its specialists run machines that execute their
   * nodes directly (see `runNodeDirectly`), since nothing persists them while a node is in flight.
   */
  direct = false;
  /** The node in flight of a machine that runs its nodes directly (the cancel action abandons it). */
  nodeCall: NodeCall | null = null;
  /** What the run has spent against its budgets, live (null for a run without a budget); set when a leg starts. */
  meter: BudgetMeter | null = null;
  /** The step events refilled step after step while nobody takes stamped events (see {@link ReusedEvents}). */
  readonly reused = new ReusedEvents();
  /** True for a sub-workflow's run sharing its parent run's meter: its steps count as nested iterations (see `BudgetMeter.checkNestedStep`). */
  nestedMeter = false;
  /** A node of a nested run that is not an iteration of its parent run: a sub-workflow's own finish step (inlined, it would not exist). */
  uncountedNode: string | null = null;
  /** The emitters its nodes' contexts report through while someone listens, by node id (see `stepNode`). */
  readonly reporters = new Map<string, NodeEmit>();
  /** How the run's leaf steps execute (`RunOptions.stepRunner`); null: in this process, directly. */
  stepRunner: StepRunner | null = null;
  /**
   * Pauses the leg at a breakpoint (set by a stored run's leg): the node about to run does not,
   * and the run waits with `waiting`. Null where nothing can pause the run.
   */
  pause: ((waiting: WaitingInfo) => void) | null = null;
  /** The step a resumed leg continues at a breakpoint: it does not pause there again. */
  releasedStep: number | null = null;
  /**
   * Where a coordinator's specialists run when not in this process (a worker of the run queue sets
   * it): each task is then a stored run of its own. Specialists' own runtimes never inherit it.
   */
  specialistRuns: SpecialistRuns | null = null;
  /**
   * Aborted when the run is cancelled (by its signal, or its stored row by `cancelRun`), not when its
   * leg stops otherwise (taken over, a write that failed): a coordinator's dispatch then cancels the
   * specialist runs it created (see `remoteSpecialist`). Set by a stored run's leg.
   */
  cancellation: AbortSignal | null = null;
  /** Work a cancelled run's leg waits for before it ends: the cancels of its specialist runs (see {@link cancellation}). */
  readonly cancelling = new Set<Promise<unknown>>();
  /** Set when the run is a fork of another (its `run.started` event names the parent and the step). */
  forkOf: ForkLink | null = null;

  #trace: TraceContext | null = null;
  /** The run's place in its trace; set from the machine context when the run starts or restores. */
  get trace(): TraceContext {
    return (this.#trace ??= newTraceContext());
  }

  set trace(trace: TraceContext) {
    this.#trace = trace;
  }
  /** The span of the node in flight (a new one per step, while someone listens). */
  nodeSpanId: string | null = null;
  #context: WorkflowContext | null = null;
  #boundTo: Record<string, unknown> | null = null;
  /** What the run's shared state may hold; set from the machine when the runtime is attached to its actor. */
  stateModel: StateModel | null = null;

  constructor(options: {
    session?: unknown;
    streaming?: boolean;
    clock?: Clock;
    onEvent?: (event: WorkflowEvent) => void;
    /** The engine's own listener (a stream's channel), called after `onEvent`. */
    listener?: (event: WorkflowEvent) => void;
    /** The id of the run this runtime starts or continues. */
    runId?: string;
    /** Receive every event redacted (see TraceRecorder). */
    recorders?: readonly TraceRecorder[];
    /** The last sequence number already used (non-zero when a run continues). */
    seq?: number;
    journal?: Journal | null;
    /** A specialist's runtime reports through its parent's sink (same listeners, same counter). */
    parent?: RunRuntime;
  } = {}) {
    this.journal = options.journal ?? null;
    this.#sink = options.parent === undefined ? new EventSink(options.seq ?? 0) : options.parent.#sink;
    this.session = options.session;
    this.streaming = options.streaming ?? false;
    const clock = options.clock ?? systemClock;
    // The system clock needs no guard (and a run that keeps it pays for none).
    this.clock =
      options.parent !== undefined ? options.parent.clock : clock === systemClock ? clock : guardClock(clock, (thrown, problem) => this.callbackFailed('clock', clock, thrown, problem));
    this.#runId = options.runId ?? null;
    if (options.parent === undefined) this.#sink.report = (error) => this.#report(error);
    if (options.onEvent !== undefined) this.#sink.listeners.push(options.onEvent);
    if (options.listener !== undefined) this.#sink.listeners.push(options.listener);
    for (const recorder of options.recorders ?? []) this.addRecorder(recorder);
  }

  /** The last sequence number used. */
  get seq(): number {
    return this.#sink.seq;
  }

  /**
   * The secret values this run scrubs from what it records and stores: read from the environment
   * once per run, at the first need, and shared with its specialists (they report through the same sink).
   */
  get secrets(): readonly string[] {
    return this.#sink.runSecrets();
  }

  /**
   * True when someone listens, so callers can skip building events nobody reads. A recorder on the
   * light path (see `TraceRecorder.hops`) counts: it reads the unstamped events.
   */
  get listening(): boolean {
    const sink = this.#sink;
    return sink.listeners.length > 0 || sink.recorders.length > 0 || sink.hops.length > 0;
  }

  /** True when someone takes stamped trace events (a listener or a recorder off the light path): span ids are then worth making. */
  get tracing(): boolean {
    return this.#sink.listeners.length > 0 || this.#sink.recorders.length > 0;
  }

  /** Adds a recorder: it receives every later event, redacted, or unstamped when it has a light path (`hops`). */
  addRecorder(recorder: TraceRecorder): void {
    const sink = this.#sink;
    const hops = recorder.hops;
    if (hops !== undefined && hops !== null) {
      if (!sink.hops.some((entry) => entry.recorder === recorder)) sink.hops.push({ recorder, hops, failed: false });
    } else if (!sink.recorders.includes(recorder)) {
      sink.recorders.push(recorder);
    }
  }

  /** Removes a recorder added with {@link addRecorder}. */
  removeRecorder(recorder: TraceRecorder): void {
    this.#sink.recorders = this.#sink.recorders.filter((r) => r !== recorder);
    this.#sink.hops = this.#sink.hops.filter((entry) => entry.recorder !== recorder);
  }

  /** Adds a raw event listener that runs before the others (recorders, which get redacted events, run first). */
  addListener(listener: (event: WorkflowEvent) => void): void {
    this.#sink.listeners.unshift(listener);
  }

  /** Removes a listener added with {@link addListener}. */
  removeListener(listener: (event: WorkflowEvent) => void): void {
    this.#sink.listeners = this.#sink.listeners.filter((l) => l !== listener);
  }

  /**
   * Records that a callback the caller handed in failed (see {@link CallbackError}): a listener
   * or recorder is detached, and the failure is reported as a `callback.failed` event while the
   * run is still going.
   */
  callbackFailed(kind: CallbackKind, callback: object, thrown: unknown, problem?: string): void {
    this.#sink.fail(kind, callback, thrown, problem);
  }

  /** Callback failures so far (this run and its specialists). */
  get callbackErrors(): readonly CallbackError[] {
    return this.#sink.callbackErrors;
  }

  /** Marks the run as reported in full (after `run.completed`): later callback failures are only kept. */
  close(): void {
    this.#sink.closed = true;
  }

  #report(error: CallbackError): void {
    if (this.#runId === null) return;
    this.emit(this.#runId, { type: 'callback.failed', callback: error.callback, error: error.toJSON() });
  }

  /**
   * Stamps the envelope on an event and delivers it to the listeners and recorders; hands it
   * unstamped to the recorders on the light path, which read the clock only if they need the time.
   * `at`: a clock reading the caller already took for this event (the end of a node's duration), used
   * as its time instead of a new reading.
   */
  emit(runId: string, event: PendingEvent, at?: number): void {
    const sink = this.#sink;
    const stamped = sink.listeners.length > 0 || sink.recorders.length > 0;
    if (!stamped && sink.hops.length === 0) return;
    this.#runId ??= runId;
    const trace = this.trace;
    const time = this.#time;
    time.begin(this.clock, at);
    // Read before the delivery opens, so a failing clock's report comes before this event.
    const stampAt = stamped ? time.now() : 0;
    sink.enter();
    try {
      if (stamped) this.#stamp(runId, event, stampAt, trace);
      if (sink.hops.length > 0) sink.hop(event, runId, trace.path, time);
    } finally {
      sink.leave();
    }
  }

  /**
   * True when a step's `node.completed` and the edge to the next node can go out as one call (see
   * {@link emitStep}): nobody takes stamped events and every light-path listener takes steps.
   */
  get stepsInOneCall(): boolean {
    return !this.tracing && this.#sink.takesSteps;
  }

  /**
   * Reports a step's completion and the edge it took to another node (`to`, not the end) together,
   * when {@link stepsInOneCall}: the light-path listeners get them in one call each, and no event is
   * built. `at` is the reading that ended the node, the time of both.
   */
  emitStep(runId: string, nodeId: string, at: number, durationMs: number, result: unknown, to: string, kind: string, index: number, routeKey: string | undefined): void {
    const sink = this.#sink;
    this.#runId ??= runId;
    sink.enter();
    try {
      sink.step(runId, this.trace.path, nodeId, at, durationMs, result, to, kind, index, routeKey);
    } finally {
      sink.leave();
    }
  }

  /**
   * True when the `node.started` of `nodeId` would reach nobody: no one takes stamped events, and the
   * light-path listeners learned the step's start from the edge just handed over (see
   * `HopListener.startsFromEdges`), so the caller need not build it.
   */
  skipsStart(runId: string, nodeId: string): boolean {
    return !this.tracing && this.#sink.hops.length > 0 && this.#sink.skipsStart(nodeId, runId, this.trace.path);
  }

  /** The time of the event being emitted, read from the clock on first request. */
  readonly #time = new EventTime();

  #stamp(runId: string, event: PendingEvent, at: number, trace: TraceContext): void {
    const sink = this.#sink;
    sink.seq += 1;
    const nodeId = (event as { nodeId?: string }).nodeId ?? (event.type === 'edge.traversed' ? (event as { from: string }).from : null);
    const onNode = nodeId !== null && !event.type.startsWith('run.');
    const envelope: EventEnvelope = {
      runId,
      seq: sink.seq,
      at,
      traceId: trace.traceId,
      spanId: onNode ? (this.nodeSpanId ?? trace.spanId) : trace.spanId,
      parentSpanId: onNode ? trace.spanId : trace.parentSpanId,
      path: trace.path,
      nodeId,
    };
    sink.deliver(event as HopEvent, envelope);
  }

  /**
   * The context for the machine's current state object. The live map is built from the JSON state
   * once per actor (or after a restore), then kept in step with it change by change.
   */
  bind(runId: string, state: Record<string, unknown>): WorkflowContext {
    if (this.#context === null || this.#boundTo !== state) {
      const model = this.stateModel ?? StateModel.untyped;
      this.#context = new WorkflowContext({ runId, state: SharedState.fromObject(state, model), session: this.session, journal: this.journal });
      this.#boundTo = state;
      contextRuntimes.set(this.#context, this);
    }
    return this.#context;
  }

  /**
   * Records that the live map now matches `state`, a new JSON state object an action made from the
   * one bound before (the machine context is never changed in place, so each step has a new one).
   */
  adopt(state: Record<string, unknown>): void {
    if (this.#context !== null) this.#boundTo = state;
  }

  /** The bound context, if any node has run or `bind` was called. */
  get context(): WorkflowContext | null {
    return this.#context;
  }
}

const resolved = Promise.resolve();
/** The barrier of a run without checkpoints: nothing to wait for. */
const noBarrier = (): Promise<void> => resolved;

const contextRuntimes = new WeakMap<WorkflowContext, RunRuntime>();

/**
 * The runtime a node's context belongs to (undefined for a context made outside a run): lets a
 * node that runs steps of its own (a typed workflow's fan-out or sub-workflow) report them in the
 * run's trace, under their own path.
 */
export function runtimeOfContext(ctx: WorkflowContext): RunRuntime | undefined {
  return contextRuntimes.get(ctx);
}
