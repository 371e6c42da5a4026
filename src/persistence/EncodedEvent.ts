import type { StoredEvent } from './RunStore.js';
import { expandStepItem } from './stepEventItems.js';

/**
 * The envelope of a run's event as the engine stamps it (`WorkflowEvent`'s `EventEnvelope`): its
 * own run id (a specialist's events carry the specialist's), sequence number, time, trace ids,
 * path and node.
 */
export interface StoredEnvelope {
  readonly runId: string;
  readonly seq: number;
  readonly at: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly path: string;
  readonly nodeId: string | null;
}

/** The envelope keys in the order a stamped event has them (after its own fields). */
export const ENVELOPE_KEYS = ['runId', 'seq', 'at', 'traceId', 'spanId', 'parentSpanId', 'path', 'nodeId'] as const;

/**
 * The event as it was stamped: `body`'s fields, then the envelope's (a key `body` already has keeps
 * its place and takes the envelope's value), the way the engine builds a stamped event. `body` is
 * changed in place and returned.
 */
export function withEnvelope(body: Record<string, unknown>, envelope: StoredEnvelope): Record<string, unknown> {
  body.runId = envelope.runId;
  body.seq = envelope.seq;
  body.at = envelope.at;
  body.traceId = envelope.traceId;
  body.spanId = envelope.spanId;
  body.parentSpanId = envelope.parentSpanId;
  body.path = envelope.path;
  body.nodeId = envelope.nodeId;
  return body;
}

/**
 * A stored event the engine has already encoded for the store: `json` is its body (plain JSON, as
 * `encodeStored` writes it, nothing to redact, nothing a value table would share; for a step event,
 * its item in the event log's compact form) and `envelope`
 * the stamped envelope kept beside it, so a store writes the envelope once per row of events
 * instead of once per event (see `eventRows`). The body may hold envelope keys too (an event
 * redacted as a whole): reading it back gives them the envelope's values in their places. `data`
 * (the whole event) is built only when someone reads it (a store of its own that does not know
 * this class).
 */
export class EncodedEvent implements StoredEvent {
  readonly runId: string;
  readonly seq: number;
  readonly type: string;
  readonly at: number;
  readonly json: string;
  readonly envelope: StoredEnvelope;
  /** `json` is a step event's item (a code and its values, see `STEP_EVENT_ITEMS`), not an object. */
  readonly compact: boolean;
  #data: Record<string, unknown> | null = null;

  constructor(runId: string, type: string, json: string, envelope: StoredEnvelope, compact = false) {
    this.runId = runId;
    this.seq = envelope.seq;
    this.type = type;
    this.at = envelope.at;
    this.json = json;
    this.envelope = envelope;
    this.compact = compact;
  }

  get data(): Record<string, unknown> {
    if (this.#data === null) {
      const parsed = JSON.parse(this.json) as unknown;
      const body = this.compact ? expandStepItem(parsed as unknown[]) : (parsed as Record<string, unknown>);
      this.#data = withEnvelope(body!, this.envelope);
    }
    return this.#data;
  }

  /** The event as a plain stored event (a store that serializes whole events gets its data). */
  toJSON(): StoredEvent {
    return { runId: this.runId, seq: this.seq, type: this.type, at: this.at, data: this.data };
  }

  /**
   * One event held for the life of the process, so its shape is never unused. V8 keeps an object
   * shape only while an object has it: between runs every event is written and let go, and a full
   * GC then drops the shape and throws away the optimized code of the store's write path that
   * checks for it (encodeEventLog, eventRows, the checkpointer's intake), which the next runs execute
   * unoptimized until it is compiled again. Its fields have the kinds a run's events have (a time
   * in milliseconds is no small integer), or it would hold a shape of its own.
   */
  static readonly #shapeKeeper = new EncodedEvent('', '', '{}', { runId: '', seq: 1, at: Date.now(), traceId: '', spanId: '', parentSpanId: null, path: '', nodeId: null });
}
