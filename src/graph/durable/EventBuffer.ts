import { EncodedEvent, ENVELOPE_KEYS, type StoredEnvelope } from '../../persistence/EncodedEvent.js';
import type { StoredEvent } from '../../persistence/RunStore.js';
import { encodePlainStored, encodeStored, encodeUnsharedStored, quickStoredSize } from '../../persistence/storedJson.js';
import { StoreError } from '../../persistence/StoreError.js';
import type { HopEvent } from '../../trace/HopListener.js';
import { eventRedactsToItself, redactEventSafely, type TraceEvent } from '../../trace/TraceEvent.js';
import type { EventEnvelope, WorkflowEvent } from '../WorkflowEvent.js';
import { stepEventJson, type QuotedStrings } from './stepEventJson.js';
import { shrunkEvent } from './shrunkEvent.js';
import { withFields } from '../withFields.js';

/**
 * Events that are live only: a stream's token deltas (the stored run keeps the model's response).
 * They keep their seq in the live stream, so the stored log skips those numbers; its readers go by
 * "after seq n" (`listEvents`, `Last-Event-ID`), for which a gap is no loss.
 */
export const LIVE_ONLY: ReadonlySet<string> = new Set(['model.delta']);

/** How many node ids {@link EventBuffer} remembers as clean for one run id and path. */
const CLEAN_NODES_MAX = 256;

/** The envelope of a stamped event (its own values, as redacted). */
function envelopeOf(event: TraceEvent): StoredEnvelope {
  return { runId: event.runId, seq: event.seq, at: event.at, traceId: event.traceId, spanId: event.spanId, parentSpanId: event.parentSpanId, path: event.path, nodeId: event.nodeId };
}

/** True when the event has no field named like an envelope field (the engine's own events never do). */
function plainFields(event: HopEvent): boolean {
  return !('runId' in event || 'seq' in event || 'at' in event || 'traceId' in event || 'spanId' in event || 'parentSpanId' in event || 'path' in event || ('nodeId' in event && event.nodeId === undefined));
}

/**
 * The events a run's checkpointer holds for its next write, each redacted and encoded as the store
 * keeps it when it is added (a node may change the result it returned, and a listener the event it
 * got, afterwards): as it is when nothing in it or in its envelope needs redacting, with the
 * envelope kept beside it, so the store writes the envelope once per row (`encodeEventLog`).
 */
export class EventBuffer {
  readonly #runId: string;
  readonly #secrets: readonly string[];
  readonly #limit: number;
  #events: StoredEvent[] = [];
  /** Node ids and edge kinds of the run's step events, quoted (see {@link stepEventJson}). */
  readonly #strings: QuotedStrings = new Map();
  /**
   * The run id and path of the envelopes last found to need no redaction, and their node ids
   * found so (a run's events alternate between its nodes' ids and none).
   */
  #cleanRunId: string | null = null;
  #cleanPath: string | null = null;
  readonly #cleanNodes = new Set<string | null>();

  constructor(runId: string, secrets: readonly string[], limit: number) {
    this.#runId = runId;
    this.#secrets = secrets;
    this.#limit = limit;
  }

  /** How many events are held. */
  get length(): number {
    return this.#events.length;
  }

  /**
   * Adds an event from its parts as the run made it: its fields and its envelope, or the copy the
   * run redacted already (for another recorder), which is stored without being checked again.
   */
  addParts(event: HopEvent, envelope: EventEnvelope, redacted?: TraceEvent): void {
    if (redacted !== undefined) {
      this.#events.push(plainFields(event) ? this.#stripped(event, redacted) : this.#redacted(redacted));
      return;
    }
    this.#events.push(this.#encodeParts(event, envelope));
  }

  /** Adds a stamped event: redacted when something in it needs it, then encoded. */
  addStamped(event: TraceEvent): void {
    this.addRedacted(eventRedactsToItself(event as WorkflowEvent, this.#secrets) ? event : redactEventSafely(event as WorkflowEvent, this.#secrets));
  }

  /** Adds an event the run has already redacted: encoded once, not checked for redaction again. */
  addRedacted(event: TraceEvent): void {
    this.#events.push(this.#redacted(event));
  }

  /** The events held so far, in order; the buffer is empty afterwards. */
  take(): StoredEvent[] {
    const events = this.#events;
    this.#events = [];
    return events;
  }

  /** An event from its parts, checked and encoded on its own. */
  #encodeParts(event: HopEvent, envelope: EventEnvelope): StoredEvent {
    const secrets = this.#secrets;
    if (!this.#envelopeRedactsToItself(envelope)) return this.#redactedParts(event, envelope);
    // The engine's step events are written from their parts, in the log's compact form.
    let json = stepEventJson(event, secrets, this.#limit, this.#strings);
    if (json !== null) return new EncodedEvent(this.#runId, event.type, json, envelope, true);
    try {
      // An event with a field of the envelope's own name (a node's custom event) is stored whole, so its keys keep their order.
      // A large object in it (a finished run's path) is written as it is when nothing in the event
      // repeats it: the text encodeStored would write, without the redacted copy and the table
      // check of a whole row (the copy it would get has nothing a table could share with other events).
      if (plainFields(event) && eventRedactsToItself(event as WorkflowEvent, secrets)) {
        json = encodeUnsharedStored(event, `event ${envelope.seq} (${event.type})`, this.#limit);
      }
    } catch {
      // Too large or not JSON: the store's encoder reports it, naming the event.
    }
    if (json !== null) return new EncodedEvent(this.#runId, event.type, json, envelope);
    return this.#redactedParts(event, envelope);
  }

  /** An event from its parts, redacted as a whole, then stored as {@link #stripped} or {@link #redacted} does. */
  #redactedParts(event: HopEvent, envelope: EventEnvelope): StoredEvent {
    const redacted = redactEventSafely(withFields(event, envelope) as unknown as WorkflowEvent, this.#secrets);
    return plainFields(event) ? this.#stripped(event, redacted) : this.#redacted(redacted);
  }

  /**
   * Whether nothing in an envelope needs redacting: its run id, path and node are the only fields
   * checked (the ids and numbers are the engine's own, see `eventRedactsToItself`), so the answer
   * is remembered for the run id and path last found clean, per node id: a run's events repeat them.
   */
  #envelopeRedactsToItself(envelope: EventEnvelope): boolean {
    const nodes = this.#cleanNodes;
    if (envelope.runId === this.#cleanRunId && envelope.path === this.#cleanPath && nodes.has(envelope.nodeId)) return true;
    if (!eventRedactsToItself(envelope as WorkflowEvent, this.#secrets)) return false;
    if (envelope.runId !== this.#cleanRunId || envelope.path !== this.#cleanPath || nodes.size >= CLEAN_NODES_MAX) {
      nodes.clear();
      this.#cleanRunId = envelope.runId;
      this.#cleanPath = envelope.path;
    }
    nodes.add(envelope.nodeId);
    return true;
  }

  /**
   * A redacted copy of `event` without its envelope fields (they come last in it, in their order,
   * and are stored beside it as for any event), so even a redacted event's envelope is written once
   * per row; an event the redaction could not read is kept whole.
   */
  #stripped(event: HopEvent, redacted: TraceEvent): StoredEvent {
    if ('unreadable' in redacted) return this.#redacted(redacted);
    const envelope = envelopeOf(redacted);
    const body: Record<string, unknown> = { ...redacted };
    for (const key of ENVELOPE_KEYS) if (key !== 'nodeId' || !('nodeId' in event)) delete body[key];
    let json: string | null = null;
    try {
      // The redacted copy shares no object with other events: a large one in it (a finished run's
      // path) is written as it is when the copy does not repeat it (see #encodeParts).
      json = encodeUnsharedStored(body, `event ${envelope.seq} (${redacted.type})`, this.#limit);
    } catch {
      // Too large or not JSON: the store's encoder reports it, naming the event.
    }
    // The redacted type: a custom event's type is the user's text, and a row can store it as a column.
    return json !== null ? new EncodedEvent(this.#runId, redacted.type, json, envelope) : this.#redacted(redacted);
  }

  /** A redacted event, encoded (mostly) once; the whole event is the body, its envelope beside it gives the store the row's shared ids. */
  #redacted(event: TraceEvent): StoredEvent {
    const what = `event ${event.seq} (${event.type})`;
    let json: string | null = null;
    let tooLarge = false;
    try {
      json = encodePlainStored(event, what, this.#limit);
    } catch (error) {
      // Too large or not JSON: the store's encoder reports it, naming the event.
      tooLarge = error instanceof StoreError && error.code === 'value_too_large';
    }
    if (json !== null) return new EncodedEvent(this.#runId, event.type, json, envelopeOf(event));
    // Long strings are for the store's encoder (its value table shares them); one that is too large
    // even so (a run.completed holding a state that outgrew the store) is kept in its place without
    // its largest values, or the write, and the events before it, would be lost.
    if (tooLarge || (quickStoredSize(event) > this.#limit && !fitsStored(event, what, this.#limit))) {
      try {
        json = encodePlainStored(shrunkEvent(event), what, this.#limit);
      } catch {
        // Still not storable: the store's encoder reports it, naming the event.
      }
      if (json !== null) return new EncodedEvent(this.#runId, event.type, json, envelopeOf(event));
    }
    return { runId: this.#runId, seq: event.seq, type: event.type, at: event.at, data: event };
  }
}

/** True when the store's encoder takes `value` within `limit` (its value table shares repeated long strings). */
function fitsStored(value: unknown, what: string, limit: number): boolean {
  try {
    encodeStored(value, what, limit);
    return true;
  } catch {
    return false;
  }
}
