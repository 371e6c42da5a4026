import { checkEvent, checkEventList } from './checkStoreInput.js';
import { EncodedEvent } from './EncodedEvent.js';
import { encodeEventLog, isEventLog, readEventLog } from './eventLog.js';
import type { StoredEvent } from './RunStore.js';
import { StoreError } from './StoreError.js';
import { decodeStored, encodeStored, MAX_STORED_BYTES } from './storedJson.js';

/** The `type` column of a row that holds several events. */
export const EVENT_BATCH_TYPE = 'events';

/** One row of the `events` table as both SQL stores write it. */
export interface EventRow {
  runId: string;
  /** The (last) event's sequence number: the row's key. */
  seq: number;
  type: string;
  at: number;
  data: string;
}

/**
 * The rows that store `events`: the consecutive events of one run written in one commit go in one
 * row, its `seq` the last event's (so `seq > n` finds every row holding an event after `n`), its
 * `type` {@link EVENT_BATCH_TYPE} (or the event's own for a row of one event) and its `at` the last
 * event's. Events the engine encoded ({@link EncodedEvent}) are written in the event log format
 * (`encodeEventLog`: each event's envelope — run id, trace id, spans, path — only where it changes,
 * so once per row); other events as rows did before it: one event's data as stored JSON, or a
 * stored JSON list whose items are the events' data (or `[seq, type, at, data]` when the data does
 * not repeat the envelope). One insert per commit instead of one per event is what keeps an event
 * log cheap at every step. When a row cannot be encoded, its events are encoded one by one, so an
 * event that is not JSON is named by its own seq and type.
 */
export function eventRows(events: readonly StoredEvent[], limit: number = MAX_STORED_BYTES): EventRow[] {
  checkEventList(events);
  for (let i = 0; i < events.length; i++) checkEvent(events[i]!, i);
  const rows: EventRow[] = [];
  let start = 0;
  while (start < events.length) {
    let end = start + 1;
    while (end < events.length && events[end]!.runId === events[start]!.runId && events[end]!.seq > events[end - 1]!.seq) end += 1;
    rows.push(...groupRows(events.slice(start, end), limit));
    start = end;
  }
  return rows;
}

/** Per run of a write, its smallest and its last seq. */
export type RunSeqs = Map<string, { first: number; last: number }>;

/** A write that would store a seq its run holds already (or, in the SQL stores, an earlier one). */
export function seqConflict(runId: string, seq: number, held: string): StoreError {
  return new StoreError(`cannot append event ${seq} to run ${runId}: ${held}; a run's events are appended once each, in increasing seq`, { code: 'run_conflict' });
}

/**
 * Each run's smallest (`first`) seq among `events`. A SQL store refuses the write when the run's
 * log holds a row at or above it: rows are keyed by their last event, so a seq inside an earlier
 * commit's range would not collide with a key. A seq repeated inside the write itself is refused
 * here (`run_conflict`).
 */
export function firstSeqs(events: readonly StoredEvent[]): RunSeqs {
  const runs: RunSeqs = new Map();
  let ordered = true;
  for (const e of events) {
    const run = runs.get(e.runId);
    if (run === undefined) runs.set(e.runId, { first: e.seq, last: e.seq });
    else {
      if (e.seq <= run.last) ordered = false;
      run.first = Math.min(run.first, e.seq);
      run.last = e.seq;
    }
  }
  // Ascending seqs cannot repeat; only a write that is not needs the full check.
  if (!ordered) {
    const seen = new Set<string>();
    for (const e of events) {
      const key = `${e.runId}\u0000${e.seq}`;
      if (seen.has(key)) throw seqConflict(e.runId, e.seq, 'the write holds it twice');
      seen.add(key);
    }
  }
  return runs;
}

/** An event's data as stored text: an encoded event in the event log format (a row of one) when it is within the limit. */
export function eventData(event: StoredEvent, limit: number): string {
  if (event instanceof EncodedEvent) {
    const text = encodeEventLog(event.runId, [event]);
    if (!overLimit(text, limit)) return text;
  }
  return encodeStored(event.data, `event ${event.seq} (${event.type})`, limit);
}

const overLimit = (text: string, limit: number): boolean => text.length * 3 > limit && Buffer.byteLength(text, 'utf8') > limit;

const single = (event: StoredEvent, limit: number): EventRow => ({
  runId: event.runId,
  seq: event.seq,
  type: event.type,
  at: event.at,
  data: eventData(event, limit),
});

/** Rows for consecutive events of one run, in ascending seq: one row when they fit in one value. */
function groupRows(group: readonly StoredEvent[], limit: number): EventRow[] {
  if (group.length === 1) return [single(group[0]!, limit)];
  const last = group[group.length - 1]!;
  // Events the engine encoded already are joined as they are: the list encodeStored would write.
  if (group.every((e) => e instanceof EncodedEvent)) {
    const data = encodeEventLog(last.runId, group as readonly EncodedEvent[]);
    if (overLimit(data, limit)) return group.map((e) => single(e, limit));
    return [{ runId: last.runId, seq: last.seq, type: EVENT_BATCH_TYPE, at: last.at, data }];
  }
  const items = group.map((e) => (e.data.seq === e.seq && e.data.type === e.type && e.data.at === e.at ? e.data : [e.seq, e.type, e.at, e.data]));
  let data: string;
  try {
    data = encodeStored(items, 'events', limit);
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    // Encoded one by one, an event that cannot be stored is named; events that only together
    // outgrow a value get a row each.
    return group.map((e) => single(e, limit));
  }
  return [{ runId: last.runId, seq: last.seq, type: EVENT_BATCH_TYPE, at: last.at, data }];
}

/** A row of the `events` table as read back (numbers may come as strings from PostgreSQL). */
export interface ReadEventRow {
  run_id: string;
  seq: number | string;
  type: string;
  at: number | string;
  data: string;
}

function corrupt(what: string, cause?: unknown): StoreError {
  return new StoreError(`${what} is not a stored event (the row was changed outside Switchboard)`, { code: 'store_corrupt', cause });
}

/**
 * The events held by rows read in `seq` order, after `afterSeq` and at most `limit` of them.
 * Fetching `limit` rows is always enough: each row holds at least one event after `afterSeq`.
 */
export function readEventRows(rows: readonly ReadEventRow[], afterSeq: number, limit: number): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (const row of rows) {
    const seq = Number(row.seq);
    const what = `event ${seq} of run ${row.run_id}`;
    let decoded: unknown;
    try {
      decoded = decodeStored(row.data);
    } catch (cause) {
      if (cause instanceof StoreError) throw cause;
      throw new StoreError(`${what} is not valid JSON (${(cause as Error).message}); the row was changed outside Switchboard`, { code: 'store_corrupt', cause });
    }
    if (isEventLog(decoded)) {
      readEventLog(row.run_id, decoded, afterSeq, limit, out, what);
    } else if (!Array.isArray(decoded)) {
      if (typeof decoded !== 'object' || decoded === null) throw corrupt(what);
      if (seq > afterSeq) out.push({ runId: row.run_id, seq, type: row.type, at: Number(row.at), data: decoded as Record<string, unknown> });
    } else {
      for (const item of decoded) {
        const event = batchItem(row.run_id, item, what);
        if (event.seq > afterSeq) out.push(event);
        if (out.length >= limit) return out;
      }
    }
    if (out.length >= limit) return out;
  }
  return out;
}

function batchItem(runId: string, item: unknown, what: string): StoredEvent {
  if (Array.isArray(item)) {
    const [seq, type, at, data] = item as [unknown, unknown, unknown, unknown];
    if (typeof seq !== 'number' || typeof type !== 'string' || typeof at !== 'number' || typeof data !== 'object' || data === null) throw corrupt(what);
    return { runId, seq, type, at, data: data as Record<string, unknown> };
  }
  const data = item as Record<string, unknown> | null;
  if (typeof data !== 'object' || data === null || typeof data.seq !== 'number' || typeof data.type !== 'string' || typeof data.at !== 'number') throw corrupt(what);
  return { runId, seq: data.seq, type: data.type, at: data.at, data };
}
