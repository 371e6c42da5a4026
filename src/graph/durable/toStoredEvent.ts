import type { StoredEvent } from '../../persistence/RunStore.js';
import { redactForOutput } from '../../trace/redact.js';
import type { WorkflowEvent } from '../WorkflowEvent.js';

/**
 * The stored form of an event: JSON only (the final run's state map becomes an object and its error
 * `{ name, code, message }`), with secrets, inline images and `__` keys removed.
 */
export function toStoredEvent(event: WorkflowEvent, secrets: readonly string[]): StoredEvent {
  const data = redactForOutput(event, secrets) as Record<string, unknown>;
  return { runId: event.runId, seq: event.seq, type: event.type, at: event.at, data };
}
