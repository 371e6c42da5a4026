import type { TraceEvent } from '../../trace/TraceEvent.js';

/** The largest JSON text a field keeps in a {@link shrunkEvent} (4 KiB). */
const KEPT_FIELD_BYTES = 4096;

/** True when `value` writes as JSON text of at most {@link KEPT_FIELD_BYTES} characters. */
function small(value: unknown): boolean {
  try {
    const text = JSON.stringify(value);
    return text === undefined || text.length <= KEPT_FIELD_BYTES;
  } catch {
    return false;
  }
}

/** The small fields of `fields`; the names of the others go to `omitted`, after `prefix`. */
function smallFields(fields: Record<string, unknown>, omitted: string[], prefix: string): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    if (small(fields[key])) kept[key] = fields[key];
    else omitted.push(`${prefix}${key}`);
  }
  return kept;
}

/**
 * A redacted event too large for the store, made storable: its envelope and small fields are kept
 * (a finished run's status, error and output under `run`), the large ones (a state, a result) are
 * left out and named in `omitted`. So the log keeps every event in its place, and a run that
 * failed because its state outgrew the store still ends with the `run.completed` saying so.
 */
export function shrunkEvent(event: TraceEvent): TraceEvent {
  const omitted: string[] = [];
  const fields = event as unknown as Record<string, unknown>;
  const run = fields['run'];
  const kept = smallFields(fields, omitted, '');
  if (run !== null && typeof run === 'object' && !Array.isArray(run) && !('run' in kept)) {
    omitted.splice(omitted.indexOf('run'), 1);
    kept['run'] = smallFields(run as Record<string, unknown>, omitted, 'run.');
  }
  return { ...kept, omitted } as unknown as TraceEvent;
}
