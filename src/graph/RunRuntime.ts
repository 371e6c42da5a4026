import type { AnyActorRef } from 'xstate';
import { SharedState } from './SharedState.js';
import { WorkflowContext, type Journal } from './WorkflowContext.js';
import type { EngineEvent, EventEnvelope, WorkflowEvent } from './WorkflowEvent.js';
import { systemClock, type Clock } from './RunOptions.js';
import type { SwitchboardError } from '../errors/SwitchboardError.js';
import { newTraceContext, type TraceContext } from '../trace/TraceContext.js';
import { redactEvent, type TraceEvent } from '../trace/TraceEvent.js';
import type { TraceRecorder } from '../trace/TraceRecorder.js';
import { secretValues } from '../trace/redact.js';

/** Distributes an event type over a union, so each member loses its envelope separately. */
type WithoutEnvelope<T> = T extends unknown ? Omit<T, keyof EventEnvelope> & { nodeId?: string } : never;

/** An event before the runtime stamps its envelope (`nodeId` only for node events). */
export type PendingEvent = WithoutEnvelope<EngineEvent> | { type: string; nodeId: string; [field: string]: unknown };

/**
 * Where stamped events go: a run's listeners (raw events, in process), its recorders (redacted
 * events, once per event whatever their number) and its sequence counter, shared with its
 * specialists.
 */
class EventSink {
  seq: number;
  listeners: Array<(event: WorkflowEvent) => void> = [];
  recorders: TraceRecorder[] = [];
  /** Read from the environment when the first recorder is added. */
  secrets: readonly string[] | null = null;
  constructor(seq: number) {
    this.seq = seq;
  }

  record(event: WorkflowEvent): void {
    this.secrets ??= secretValues();
    let traced: TraceEvent;
    try {
      traced = redactEvent(event, this.secrets);
    } catch {
      // A value that cannot be read (a throwing getter) must not cost the event its place in the log.
      const { type, runId, seq, at, traceId, spanId, parentSpanId, path, nodeId } = event;
      traced = { type, runId, seq, at, traceId, spanId, parentSpanId, path, nodeId, unreadable: true };
    }
    for (const recorder of this.recorders) {
      try {
        recorder.record(traced);
      } catch {
        // A failing recorder must not break the run; it stops receiving events.
        this.recorders = this.recorders.filter((r) => r !== recorder);
      }
    }
  }
}

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
  barrier: () => Promise<void> = () => Promise.resolve();
  readonly #sink: EventSink;
  /** A runtime for a specialist run started by this one: same listeners and counter, same clock, no session. */
  child(): RunRuntime {
    return new RunRuntime({ parent: this, clock: this.clock, streaming: this.streaming, journal: this.journal });
  }

  /** The run's place in its trace; set from the machine context when the run starts or restores. */
  trace: TraceContext = newTraceContext();
  /** The span of the node in flight (a new one per step, while someone listens). */
  nodeSpanId: string | null = null;
  #context: WorkflowContext | null = null;
  #boundTo: Record<string, unknown> | null = null;

  constructor(options: {
    session?: unknown;
    streaming?: boolean;
    clock?: Clock;
    onEvent?: (event: WorkflowEvent) => void;
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
    this.clock = options.clock ?? systemClock;
    if (options.onEvent !== undefined) this.#sink.listeners.push(options.onEvent);
    for (const recorder of options.recorders ?? []) this.addRecorder(recorder);
  }

  /** The last sequence number used. */
  get seq(): number {
    return this.#sink.seq;
  }

  /** True when someone listens, so callers can skip building events nobody reads. */
  get listening(): boolean {
    return this.#sink.listeners.length > 0 || this.#sink.recorders.length > 0;
  }

  /** Adds a recorder: it receives every later event, redacted. */
  addRecorder(recorder: TraceRecorder): void {
    if (!this.#sink.recorders.includes(recorder)) this.#sink.recorders.push(recorder);
  }

  /** Removes a recorder added with {@link addRecorder}. */
  removeRecorder(recorder: TraceRecorder): void {
    this.#sink.recorders = this.#sink.recorders.filter((r) => r !== recorder);
  }

  /** Adds a raw event listener that runs before the others (recorders, which get redacted events, run first). */
  addListener(listener: (event: WorkflowEvent) => void): void {
    this.#sink.listeners.unshift(listener);
  }

  /** Removes a listener added with {@link addListener}. */
  removeListener(listener: (event: WorkflowEvent) => void): void {
    this.#sink.listeners = this.#sink.listeners.filter((l) => l !== listener);
  }

  /** Stamps the envelope on an event and delivers it. */
  emit(runId: string, event: PendingEvent): void {
    const sink = this.#sink;
    if (sink.listeners.length === 0 && sink.recorders.length === 0) return;
    sink.seq += 1;
    const trace = this.trace;
    const nodeId = (event as { nodeId?: string }).nodeId ?? (event.type === 'edge.traversed' ? (event as { from: string }).from : null);
    const onNode = nodeId !== null && !event.type.startsWith('run.');
    const stamped = {
      ...event,
      runId,
      seq: sink.seq,
      at: this.clock.now(),
      traceId: trace.traceId,
      spanId: onNode ? (this.nodeSpanId ?? trace.spanId) : trace.spanId,
      parentSpanId: onNode ? trace.spanId : trace.parentSpanId,
      path: trace.path,
      nodeId,
    } as WorkflowEvent;
    if (sink.recorders.length > 0) sink.record(stamped);
    for (const listener of sink.listeners) listener(stamped);
  }

  /**
   * The context for the machine's current state object. The live map is built from the JSON state
   * once per actor (or after a restore), then kept in step with it change by change.
   */
  bind(runId: string, state: Record<string, unknown>): WorkflowContext {
    if (this.#context === null || this.#boundTo !== state) {
      this.#context = new WorkflowContext({ runId, state: SharedState.fromObject(state), session: this.session, journal: this.journal });
      this.#boundTo = state;
    }
    return this.#context;
  }

  /** The bound context, if any node has run or `bind` was called. */
  get context(): WorkflowContext | null {
    return this.#context;
  }
}

const runtimes = new WeakMap<AnyActorRef, RunRuntime>();
let pending: RunRuntime | null = null;

/**
 * Creates a graph actor with its runtime attached from the very first transition: the initial
 * state's entry actions run inside `createActor`, before the caller could attach anything.
 */
export function createWithRuntime<T extends AnyActorRef>(runtime: RunRuntime, create: () => T): T {
  pending = runtime;
  try {
    const actor = create();
    runtimes.set(actor, runtime);
    return actor;
  } finally {
    pending = null;
  }
}

/**
 * Called by the machine's context factory: adopts the runtime handed over by
 * {@link createWithRuntime}, or, for a machine invoked by another graph (a specialist), a runtime
 * that reports through its parent's.
 */
export function adoptPendingRuntime(self: AnyActorRef, trace: TraceContext): void {
  const parent = self._parent === undefined ? undefined : runtimes.get(self._parent);
  // A machine created directly with createActor gets a quiet runtime of its own.
  const runtime = pending ?? (parent === undefined ? new RunRuntime() : parent.child());
  runtime.trace = trace;
  runtimes.set(self, runtime);
}

/**
 * The runtime of a machine actor. A specialist restored with its parent gets one reporting through
 * the parent's; an actor created directly with `createActor` gets a quiet default.
 */
export function runtimeOf(actor: AnyActorRef): RunRuntime {
  let runtime = runtimes.get(actor);
  if (runtime === undefined) {
    const parent = actor._parent === undefined ? undefined : runtimes.get(actor._parent);
    runtime = parent === undefined ? new RunRuntime() : parent.child();
    try {
      const trace = (actor.getSnapshot() as { context?: { trace?: TraceContext } } | undefined)?.context?.trace;
      if (trace !== undefined) runtime.trace = trace;
    } catch {
      // The actor is still initializing; its context factory sets the trace.
    }
    runtimes.set(actor, runtime);
  }
  return runtime;
}
