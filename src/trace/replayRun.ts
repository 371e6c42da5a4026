import type { RunStore } from '../persistence/RunStore.js';
import { StoreError } from '../persistence/StoreError.js';
import { formatZodError } from '../errors/formatZodError.js';
import { TraceEvent } from './TraceEvent.js';
import type { TraceRecorder } from './TraceRecorder.js';

/**
 * Feeds a stored run's event log (already redacted when it was stored) into recorders, in `seq`
 * order, as if they had been attached while it ran: export a finished run to OpenTelemetry, write
 * it as JSON Lines, or rebuild a timeline. Resolves to the number of events replayed.
 *
 * @example
 * await replayRun(store, runId, [new OpenTelemetryRecorder({ tracer })]);
 */
export async function replayRun(store: RunStore, runId: string, recorders: readonly TraceRecorder[], options: { afterSeq?: number } = {}): Promise<number> {
  const stored = await store.listEvents(runId, options.afterSeq === undefined ? {} : { afterSeq: options.afterSeq });
  for (const row of stored) {
    const parsed = TraceEvent.safeParse(row.data);
    if (!parsed.success) {
      throw new StoreError(`stored event ${row.seq} of run ${runId} is not a trace event (${formatZodError(parsed.error)})`, { code: 'store_corrupt' });
    }
    for (const recorder of recorders) recorder.record(parsed.data);
  }
  return stored.length;
}
