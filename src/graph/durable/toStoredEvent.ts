import type { StoredEvent } from '../../persistence/RunStore.js';
import type { TraceEvent } from '../../trace/TraceEvent.js';

/**
 * The stored form of an event: its envelope's `seq`, `type` and `at` as columns and the whole
 * redacted event (already JSON: secrets, inline images and `__` keys removed) as data.
 */
export function toStoredEvent(event: TraceEvent): StoredEvent {
  return { runId: event.runId, seq: event.seq, type: event.type, at: event.at, data: event };
}
