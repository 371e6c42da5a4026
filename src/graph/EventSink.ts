import { catchThenable } from './catchThenable.js';
import { withFields } from './withFields.js';
import type { EventEnvelope, WorkflowEvent } from './WorkflowEvent.js';
import { CallbackError, type CallbackKind } from '../errors/CallbackError.js';
import { redactEventSafely, type TraceEvent } from '../trace/TraceEvent.js';
import type { TraceRecorder } from '../trace/TraceRecorder.js';
import type { HopEvent, HopListener, HopTime } from '../trace/HopListener.js';
import { secretValues } from '../trace/redact.js';

type Listener = (event: WorkflowEvent) => void;

/** The stamped event: the event's fields, then its envelope (a key both have keeps the event's place). */
function stamp(event: HopEvent, envelope: EventEnvelope): WorkflowEvent {
  return withFields(event, envelope) as unknown as WorkflowEvent;
}

/** True when every listener on the light path learns a step's start from the edge that led to it. */
function startsFromEdges(hops: readonly HopEntry[]): boolean {
  for (let i = 0; i < hops.length; i++) if (hops[i]!.hops.startsFromEdges !== true) return false;
  return true;
}

/** True when every listener on the light path takes a step's completion and edge in one call (`HopListener.step`). */
function takeSteps(hops: readonly HopEntry[]): boolean {
  for (let i = 0; i < hops.length; i++) {
    const listener = hops[i]!.hops;
    if (listener.startsFromEdges !== true || typeof listener.step !== 'function') return false;
  }
  return hops.length > 0;
}

/** A recorder on the light path, with the listener it gave (see `TraceRecorder.hops`). */
export interface HopEntry {
  recorder: TraceRecorder;
  hops: HopListener;
  /** Set when it failed (it is also taken out of the list, but a delivery in progress still holds it). */
  failed: boolean;
}

/**
 * Where a run's stamped events go: its listeners (raw events, in process), its recorders (redacted
 * events, once per event whatever their number) and its sequence counter, shared with its
 * specialists; and where its unstamped events go: the recorders on the light path ({@link hops}).
 * A listener or recorder that throws or rejects is detached; the failure is kept in
 * {@link callbackErrors} and reported through {@link report} (as a `callback.failed` event) to
 * the observers that remain.
 */
export class EventSink {
  seq: number;
  listeners: Listener[] = [];
  recorders: TraceRecorder[] = [];
  /** Recorders that take the light path: handed each event unstamped (see `HopListener`). */
  hops: HopEntry[] = [];
  /** The run's secret values: read from the environment once, when first needed (shared by the run's specialists and its durable leg). */
  secrets: readonly string[] | null = null;
  /** Every callback failure of the run (and its specialists), in order. */
  readonly callbackErrors: CallbackError[] = [];
  /** Set once the run reported its last event: later failures are kept but not reported. */
  closed = false;
  /** Reports a failure as an event; set by the run's root runtime. */
  report: (error: CallbackError) => void = () => {};
  /** Callbacks that already failed: a callback fails once, however many of its promises reject. */
  readonly #failed = new WeakSet<object>();
  /** How deep inside {@link deliver} we are, and the failures waiting for it to finish. */
  #depth = 0;
  #queued: CallbackError[] = [];

  constructor(seq: number) {
    this.seq = seq;
  }

  /**
   * Delivers an event given as its fields and its envelope: recorders first (redacted; a recorder
   * with `recordParts` gets the two parts), then listeners (raw). The stamped event is built only
   * for the listeners and recorders that take it.
   */
  deliver(event: HopEvent, envelope: EventEnvelope): void {
    this.enter();
    try {
      let stamped: WorkflowEvent | null = null;
      if (this.recorders.length > 0) stamped = this.#record(event, envelope);
      if (this.listeners.length > 0) {
        const full = (stamped ??= stamp(event, envelope));
        for (const listener of this.listeners) {
          if (this.#failed.has(listener)) continue;
          this.#call('onEvent', listener, () => listener(full));
        }
      }
    } finally {
      this.leave();
    }
  }

  /**
   * Opens a delivery: failures of callbacks until the matching {@link leave} are reported after it,
   * so every observer sees the events in order (one event may go both ways, stamped and unstamped).
   */
  enter(): void {
    this.#depth += 1;
  }

  /** Closes a delivery opened with {@link enter}, then reports the failures it queued. */
  leave(): void {
    this.#depth -= 1;
    while (this.#depth === 0 && this.#queued.length > 0 && !this.closed) this.report(this.#queued.shift()!);
  }

  /** The last event handed over on the light path when it was an edge to a node: its run, path and node (see `HopListener.startsFromEdges`). */
  #edgeTo: string | null = null;
  #edgeRunId = '';
  #edgePath = '';

  /** True when every recorder on the light path takes a step in one call (see `HopListener.step`). */
  get takesSteps(): boolean {
    return takeSteps(this.hops);
  }

  /**
   * True when the `node.started` of `nodeId` would not be handed over on the light path: it comes
   * right after the edge to it (see `HopListener.startsFromEdges`). It then counts as handed over.
   */
  skipsStart(nodeId: string, runId: string, path: string): boolean {
    if (this.#edgeTo === null || this.#edgeTo !== nodeId || this.#edgeRunId !== runId || this.#edgePath !== path || !startsFromEdges(this.hops)) return false;
    this.#edgeTo = null;
    return true;
  }

  /** Hands a step's completion and its edge to another node to the recorders on the light path in one call each (inside a delivery; see `HopListener.step`). */
  step(runId: string, path: string, nodeId: string, at: number, durationMs: number, result: unknown, to: string, kind: string, index: number, routeKey: string | undefined): void {
    this.#edgeTo = to;
    this.#edgeRunId = runId;
    this.#edgePath = path;
    const hops = this.hops;
    for (let i = 0; i < hops.length; i++) {
      const entry = hops[i]!;
      if (entry.failed) continue;
      try {
        entry.hops.step!(runId, path, nodeId, at, durationMs, result, to, kind, index, routeKey);
      } catch (error) {
        this.fail('recorder', entry.recorder, error);
      }
    }
  }

  /** Hands an unstamped event to the recorders on the light path (inside a delivery, see {@link enter}). */
  hop(event: HopEvent, runId: string, path: string, time: HopTime): void {
    const hops = this.hops;
    const type = event.type;
    if (type === 'node.started' && this.#edgeTo !== null && this.#edgeTo === event.nodeId && this.#edgeRunId === runId && this.#edgePath === path && startsFromEdges(hops)) {
      this.#edgeTo = null;
      return;
    }
    if (type === 'edge.traversed' && typeof event.to === 'string') {
      this.#edgeTo = event.to;
      this.#edgeRunId = runId;
      this.#edgePath = path;
    } else {
      this.#edgeTo = null;
    }
    for (let i = 0; i < hops.length; i++) {
      const entry = hops[i]!;
      if (entry.failed) continue;
      try {
        entry.hops.hop(event, runId, path, time);
      } catch (error) {
        this.fail('recorder', entry.recorder, error);
      }
    }
  }

  /**
   * Records that a callback failed: detaches it if it is a listener or recorder, keeps the error
   * and reports it once. `problem` describes a bad return value (nothing was thrown).
   */
  fail(kind: CallbackKind, callback: object, thrown: unknown, problem?: string): void {
    if (this.#failed.has(callback)) return;
    this.#failed.add(callback);
    this.listeners = this.listeners.filter((l) => l !== callback);
    this.recorders = this.recorders.filter((r) => r !== callback);
    this.hops = this.hops.filter((h) => {
      if (h.recorder === callback) h.failed = true;
      return !h.failed;
    });
    const error = new CallbackError(kind, thrown, problem);
    this.callbackErrors.push(error);
    if (this.closed) return;
    if (this.#depth > 0) this.#queued.push(error);
    else this.report(error);
  }

  #call(kind: CallbackKind, callback: object, call: () => unknown): void {
    let returned: unknown;
    try {
      returned = call();
    } catch (error) {
      this.fail(kind, callback, error);
      return;
    }
    catchThenable(returned, (error) => this.fail(kind, callback, error));
  }

  /** Hands the event to the recorders; returns the stamped event if it had to be built. */
  #record(pending: HopEvent, envelope: EventEnvelope): WorkflowEvent | null {
    // Stamped only for a recorder that takes whole events, and redacted only when a recorder takes
    // redacted events: a run whose only recorder is the run store's event log (which takes the
    // parts and redacts what it keeps itself) builds neither. Once it is redacted, a raw recorder
    // that can take the redacted copy gets it, so the event is not checked for redaction twice.
    let event: WorkflowEvent | null = null;
    let traced: TraceEvent | null = null;
    // Indexed loops that create no closure: a closure here would make every turn allocate the
    // scope it captures, three times a step for a stored run.
    const recorders = this.recorders;
    for (let i = 0; i < recorders.length; i++) {
      const recorder = recorders[i]!;
      if (recorder.rawEvents !== true && !this.#failed.has(recorder)) {
        event = stamp(pending, envelope);
        traced = this.#redact(event);
        break;
      }
    }
    for (let i = 0; i < recorders.length; i++) {
      const recorder = recorders[i]!;
      if (this.#failed.has(recorder)) continue;
      if (recorder.recordParts !== undefined) {
        // Called in place, not through #call: this is the stored run's log.
        let returned: unknown;
        try {
          returned = recorder.recordParts(pending, envelope, traced ?? undefined);
        } catch (error) {
          this.fail('recorder', recorder, error);
          continue;
        }
        if (returned !== undefined) this.#settle('recorder', recorder, returned);
        continue;
      }
      event ??= stamp(pending, envelope);
      this.#recordWhole(recorder, event, traced);
    }
    return event;
  }

  /** Hands a stamped event to a recorder that takes whole events: the redacted copy, or the raw event to a raw recorder without `recordRedacted`. */
  #recordWhole(recorder: TraceRecorder, event: WorkflowEvent, traced: TraceEvent | null): void {
    if (recorder.rawEvents === true) {
      if (traced !== null && recorder.recordRedacted !== undefined) this.#call('recorder', recorder, () => recorder.recordRedacted!(traced));
      else this.#call('recorder', recorder, () => recorder.record(event as TraceEvent));
      return;
    }
    this.#call('recorder', recorder, () => recorder.record(traced!));
  }

  /** A callback's return value: a rejection of a promise it returned fails it as a throw would. */
  #settle(kind: CallbackKind, callback: object, returned: unknown): void {
    catchThenable(returned, (error) => this.fail(kind, callback, error));
  }

  /** The run's secret values, read from the environment at the first call. */
  runSecrets(): readonly string[] {
    return (this.secrets ??= secretValues());
  }

  #redact(event: WorkflowEvent): TraceEvent {
    return redactEventSafely(event, this.runSecrets());
  }
}
