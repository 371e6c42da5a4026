import type { EventEnvelope, WorkflowEvent } from '../graph/WorkflowEvent.js';
import { redactForOutput } from './redact.js';

/**
 * An event as it leaves a run, for recorders, exporters and the run store's event log: the same
 * fields as the {@link WorkflowEvent} (envelope included) in JSON form, redacted — no API keys,
 * `Authorization` values, image bytes or `__` keys. The final run's state map is a plain object and
 * errors are `{ name, message, code }`.
 */
export type TraceEvent = EventEnvelope & { type: string; [field: string]: unknown };

/**
 * The redacted JSON form of a run's event (see `redactForOutput` for what is removed).
 *
 * @example
 * const safe = redactEvent(event, secretValues());
 * fs.appendFileSync('trace.jsonl', `${JSON.stringify(safe)}\n`);
 */
export function redactEvent(event: WorkflowEvent, secrets: readonly string[]): TraceEvent {
  // The ids and numbers of the envelope are the engine's own: copied, not scanned.
  const { traceId, spanId, parentSpanId, seq, at, ...rest } = event;
  const out = redactForOutput(rest, secrets) as TraceEvent;
  out.seq = seq;
  out.at = at;
  out.traceId = traceId;
  out.spanId = spanId;
  out.parentSpanId = parentSpanId;
  return out;
}
