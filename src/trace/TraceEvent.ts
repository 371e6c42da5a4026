import { z } from 'zod';
import type { WorkflowEvent } from '../graph/WorkflowEvent.js';
import { redactFields, redactsToItself } from './redact.js';

/**
 * An event as it leaves a run, for recorders, exporters and the run store's event log: the same
 * fields as the {@link WorkflowEvent} (envelope included) in JSON form, redacted — no API keys,
 * `Authorization` values, image bytes or `__` keys. The final run's state map is a plain object and
 * errors are `{ name, message, code }`. The schema checks the envelope of events read back (from a
 * store or a JSONL file) and keeps every other field.
 */
export const TraceEvent = z.looseObject({
  type: z.string().min(1),
  runId: z.string(),
  seq: z.number().int().positive(),
  at: z.number(),
  traceId: z.string(),
  spanId: z.string(),
  parentSpanId: z.string().nullable(),
  path: z.string(),
  nodeId: z.string().nullable(),
});
/** An event as it leaves a run: JSON, redacted, with its envelope. */
export type TraceEvent = z.infer<typeof TraceEvent>;

const ENVELOPE: ReadonlySet<string> = new Set(['traceId', 'spanId', 'parentSpanId', 'seq', 'at']);

/**
 * The redacted JSON form of a run's event (see `redactForOutput` for what is removed).
 *
 * @example
 * const safe = redactEvent(event, secretValues());
 * fs.appendFileSync('trace.jsonl', `${JSON.stringify(safe)}\n`);
 */
export function redactEvent(event: WorkflowEvent, secrets: readonly string[]): TraceEvent {
  // The ids and numbers of the envelope are the engine's own: copied, not scanned.
  return redactFields(event, secrets, ENVELOPE) as TraceEvent;
}

/**
 * {@link redactEvent}, except that an event with a value that cannot be read (a getter that throws)
 * keeps its envelope and is marked `unreadable`: it must not lose its place in a log.
 */
export function redactEventSafely(event: WorkflowEvent, secrets: readonly string[]): TraceEvent {
  try {
    return redactEvent(event, secrets);
  } catch {
    const { type, runId, seq, at, traceId, spanId, parentSpanId, path, nodeId } = event;
    return { type, runId, seq, at, traceId, spanId, parentSpanId, path, nodeId, unreadable: true };
  }
}

/** True when {@link redactEvent} would give back a copy equal to the event itself (nothing to remove). */
export function eventRedactsToItself(event: WorkflowEvent, secrets: readonly string[]): boolean {
  return redactsToItself(event, secrets, ENVELOPE);
}
