import type { HopEvent } from '../../trace/HopListener.js';
import type { TraceEvent } from '../../trace/TraceEvent.js';
import type { TraceRecorder } from '../../trace/TraceRecorder.js';
import type { EventEnvelope } from '../WorkflowEvent.js';
import { EventBuffer, LIVE_ONLY } from './EventBuffer.js';

/**
 * Takes the events a new stored run emits before its row exists (the initial transition, inside
 * `createActor`) the way its checkpointer takes every later one: as the run made them (a raw
 * recorder, so no redacted copy is built for it), redacted where needed and encoded at once. The
 * checkpointer then writes them first, from the same buffer (see `CheckpointerOptions.early`).
 */
export class EarlyEvents implements TraceRecorder {
  readonly rawEvents = true;
  readonly buffer: EventBuffer;
  /** The sequence number of the last event taken (0: none). */
  lastSeq = 0;

  constructor(runId: string, secrets: readonly string[], limit: number) {
    this.buffer = new EventBuffer(runId, secrets, limit);
  }

  recordParts(event: HopEvent, envelope: EventEnvelope, redacted?: TraceEvent): void {
    this.lastSeq = envelope.seq;
    if (!LIVE_ONLY.has(event.type)) this.buffer.addParts(event, envelope, redacted);
  }

  record(event: TraceEvent): void {
    this.lastSeq = event.seq;
    if (!LIVE_ONLY.has(event.type)) this.buffer.addStamped(event);
  }

  recordRedacted(event: TraceEvent): void {
    this.lastSeq = event.seq;
    if (!LIVE_ONLY.has(event.type)) this.buffer.addRedacted(event);
  }
}
