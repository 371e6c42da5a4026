import type { StoredEvent } from '../../persistence/RunStore.js';
import type { StoreError } from '../../persistence/StoreError.js';

/**
 * `events` with the run's own `run.completed` rewritten by `rewrite` (its `run`, as stored); a
 * nested run's, or one `rewrite` returns as it was, is left as it was. `path` is the run's own place
 * in its trace: `root`, or under its coordinator run's path for a specialist run on the queue
 * (`root/spec[1]`).
 */
export function withRunCompleted(runId: string, path: string, events: StoredEvent[], rewrite: (run: Record<string, unknown>) => Record<string, unknown>): StoredEvent[] {
  return events.map((event) => {
    if (event.type !== 'run.completed') return event;
    const data = event.data;
    const run = data['run'] as Record<string, unknown> | undefined;
    if (data['runId'] !== runId || (data['path'] !== undefined && data['path'] !== path) || run === undefined) return event;
    const next = rewrite(run);
    return next === run ? event : { runId: event.runId, seq: event.seq, type: event.type, at: event.at, data: { ...data, run: next } };
  });
}

/**
 * The events a leg stores after its run was cancelled (only events are written then): the run's
 * own `run.completed`, made when its machine had ended otherwise (it finished, failed or reached a
 * wait before the leg found the cancel at a write), says `cancelled`, as the row does — the store's
 * word — with no error and no wait, as the leg reports the run (see `durableLeg`).
 */
export function cancelledEvents(runId: string, path: string, events: StoredEvent[]): StoredEvent[] {
  return withRunCompleted(runId, path, events, (run) => {
    if (run['status'] === 'cancelled') return run;
    const { error: _error, waiting: _waiting, ...kept } = run;
    return { ...kept, status: 'cancelled' };
  });
}

/**
 * The events a leg stores alone after the store refused the write that carried them (a state that
 * outgrew it): the run's own `run.completed` says `failed` with the store's error, as the row will.
 */
export function failedEvents(runId: string, path: string, events: StoredEvent[], error: StoreError): StoredEvent[] {
  return withRunCompleted(runId, path, events, ({ waiting: _waiting, ...run }) => ({ ...run, status: 'failed', error: error.toJSON() }));
}
