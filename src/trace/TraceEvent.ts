import { z } from 'zod';
import type { WorkflowEvent } from '../graph/WorkflowEvent.js';
import { redactFields } from './redact.js';

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
