import type { StoredEvent } from '../../persistence/RunStore.js';

/**
 * The events a leg stores after its run was cancelled (only events are written then): the run's
 * own `run.completed`, made when its machine had ended otherwise (it finished, failed or reached a
 * wait before the leg found the cancel at a write), says `cancelled`, as the row does — the store's
 * word — with no error and no wait, as the leg reports the run (see `durableLeg`). A nested run's
 * `run.completed` is left as it was. `path` is the run's own place in its trace: `root`, or under its
 * coordinator run's path for a specialist run on the queue (`root/spec[1]`).
 */
export function cancelledEvents(runId: string, path: string, events: StoredEvent[]): StoredEvent[] {
  return events.map((event) => {
    if (event.type !== 'run.completed') return event;
    const data = event.data;
    const run = data['run'] as Record<string, unknown> | undefined;
    if (data['runId'] !== runId || (data['path'] !== undefined && data['path'] !== path) || run === undefined || run['status'] === 'cancelled') return event;
    const { error: _error, waiting: _waiting, ...kept } = run;
    return { runId: event.runId, seq: event.seq, type: event.type, at: event.at, data: { ...data, run: { ...kept, status: 'cancelled' } } };
  });
}
