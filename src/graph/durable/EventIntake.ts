import type { HopEvent } from '../../trace/HopListener.js';
import type { TraceEvent } from '../../trace/TraceEvent.js';
import type { TraceRecorder } from '../../trace/TraceRecorder.js';
import type { EventEnvelope } from '../WorkflowEvent.js';
import { EventBuffer, LIVE_ONLY } from './EventBuffer.js';

/**
 * How a stored run's events reach its log: taken as the run made them (a raw recorder, so no
 * redacted copy is built for it), live-only ones skipped, the rest redacted where needed and
 * encoded at once into {@link buffer} for the next write. A new run's checkpointer takes over the
 * intake that held the events of its initial transition (inside `createActor`, before the run row
 * existed), so those are written first, encoded as every later one is.
 */
export class EventIntake implements TraceRecorder {
  readonly rawEvents = true;
  readonly buffer: EventBuffer;
  /** The sequence number of the last event taken, live-only ones included (0: none). */
  lastSeq = 0;

  constructor(runId: string, secrets: readonly string[], limit: number) {
    this.buffer = new EventBuffer(runId, secrets, limit);
  }

  /** An event from its parts as the run made it, or with the copy the run redacted already (see `EventBuffer.addParts`). */
  recordParts(event: HopEvent, envelope: EventEnvelope, redacted?: TraceEvent): void {
    this.lastSeq = envelope.seq;
    if (!LIVE_ONLY.has(event.type)) this.buffer.addParts(event, envelope, redacted);
  }

  /** A stamped event, redacted where needed. */
  record(event: TraceEvent): void {
    this.lastSeq = event.seq;
    if (!LIVE_ONLY.has(event.type)) this.buffer.addStamped(event);
  }

  /** An event the run has already redacted (for another recorder): not checked again. */
  recordRedacted(event: TraceEvent): void {
    this.lastSeq = event.seq;
    if (!LIVE_ONLY.has(event.type)) this.buffer.addRedacted(event);
  }
}
