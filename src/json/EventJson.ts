import { z } from 'zod';
import { JSON_SCHEMA_VERSION } from './jsonSchemaVersion.js';

/**
 * A run's event as the CLI (`show --json`) and the HTTP API (`GET /api/runs/:id/events`, the SSE
 * stream) print it: the redacted event with its envelope — `type`, `runId`, `seq` (1, 2, … per run),
 * `at` (ms since the epoch), `traceId`, `spanId`, `parentSpanId`, `path` (`root`, or the specialist's
 * lane such as `root/tool[2]`), `nodeId` — and the fields of its type (`node.completed` has `delta`
 * and `durationMs`, `tool.call` has `name` and `arguments`, `run.completed` has `run`, …), which
 * are kept as they are.
 */
export const EventJson = z.looseObject({
  schemaVersion: z.literal(JSON_SCHEMA_VERSION),
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
/** A run's event as the CLI and the HTTP API print it. */
export type EventJson = z.infer<typeof EventJson>;

/** The {@link EventJson} of a stored or live event's data (the version first). */
export function toEventJson(data: Record<string, unknown>): EventJson {
  return { schemaVersion: JSON_SCHEMA_VERSION, ...data } as EventJson;
}
