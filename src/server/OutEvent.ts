import type { StoredEvent } from '../persistence/RunStore.js';
import { FINISHED_STATUSES, type StoredRunStatus } from '../persistence/RunStore.js';
import { redactForOutput } from '../trace/redact.js';
import type { WorkflowEvent } from '../graph/WorkflowEvent.js';

/**
 * An event as the workbench sends it: its `seq`, its `type` and `data`, the whole event with its
 * envelope after redaction (secrets, `data:` URL images and `__` keys removed) — the same form
 * the run store keeps, so stored and live events look alike.
 */
export interface OutEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

/** The sendable form of a live event. */
export function liveOutEvent(event: WorkflowEvent, secrets: readonly string[]): OutEvent {
  return { seq: event.seq, type: event.type, data: redactForOutput(event, secrets) as Record<string, unknown> };
}

/** The sendable form of a stored event. */
export function storedOutEvent(event: StoredEvent): OutEvent {
  return { seq: event.seq, type: event.type, data: event.data };
}

/**
 * The final status when this event ends its run for good (`run.completed` of the top-level run
 * with a finished status, or `run.cancelled`); null otherwise — a run that waits goes on later.
 */
export function finalStatusOf(event: OutEvent): StoredRunStatus | null {
  if (event.type === 'run.cancelled') return 'cancelled';
  if (event.type !== 'run.completed') return null;
  const path = event.data.path;
  if (path !== undefined && path !== 'root') return null;
  const status = (event.data.run as { status?: unknown } | undefined)?.status;
  return typeof status === 'string' && FINISHED_STATUSES.has(status as StoredRunStatus) ? (status as StoredRunStatus) : null;
}
