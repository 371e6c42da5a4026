import { withEnvelope, type EncodedEvent, type StoredEnvelope } from './EncodedEvent.js';
import type { StoredEvent } from './RunStore.js';
import { expandStepItem } from './stepEventItems.js';
import { quoteJson } from './quoteJson.js';
import { StoreError } from './StoreError.js';

/**
 * The first item of a row written in the event log format (format 2): a row of events is a JSON list
 * `[2, item, item, …]`. Rows written before it are one event's data (an object) or a list whose
 * items are objects or `[seq, type, at, data]` lists, never a number, so the two read apart.
 */
export const EVENT_LOG_FORMAT = 2;
/**
 * Format 3: format 2, where a body may also be a step event's item (`[code, …values]`, see
 * `STEP_EVENT_ITEMS`). A row holding such an item is written as format 3; one without, as format 2.
 */
export const EVENT_LOG_FORMAT_ITEMS = 3;

const text = (value: string | null): string => (typeof value === 'string' ? quoteJson(value) : JSON.stringify(value));

/**
 * The data of a row holding `events` (consecutive events of the row's run `rowRunId`, ascending
 * seq) in the event log format: each item is an event's body (its fields without the envelope) as
 * it is, or `[changes, body]` where `changes` holds the envelope fields that differ from the event
 * before it in the row — `r` run id (when it is not the row's), `s` seq (when it is not the last
 * plus one), `a` time, `t` trace id, `i` span id, `p` parent span id, `h` path, `n` node id. The
 * first event's envelope is written whole; a run's events then mostly change only their span and
 * node, so the ids a run repeats in every event are stored once per row. A step event's body is its
 * item (`[code, …values]`, {@link EVENT_LOG_FORMAT_ITEMS}), which does not repeat its keys.
 */
export function encodeEventLog(rowRunId: string, events: readonly EncodedEvent[]): string {
  let compact = false;
  for (let i = 0; i < events.length && !compact; i++) compact = events[i]!.compact;
  let out = `[${compact ? EVENT_LOG_FORMAT_ITEMS : EVENT_LOG_FORMAT}`;
  let prev: StoredEnvelope | null = null;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    const e = event.envelope;
    // Written straight into the row's text: the first change opens the item's `[{`, the others
    // follow it with a comma (no text of the changes built apart and copied in).
    let open = false;
    if (prev === null ? e.runId !== rowRunId : e.runId !== prev.runId) {
      out += ',[{"r":' + text(e.runId);
      open = true;
    }
    if (prev === null || e.seq !== prev.seq + 1) {
      out += (open ? ',"s":' : ',[{"s":') + e.seq;
      open = true;
    }
    if (prev === null || e.at !== prev.at) {
      out += (open ? ',"a":' : ',[{"a":') + e.at;
      open = true;
    }
    if (prev === null || e.traceId !== prev.traceId) {
      out += (open ? ',"t":' : ',[{"t":') + text(e.traceId);
      open = true;
    }
    if (prev === null || e.spanId !== prev.spanId) {
      out += (open ? ',"i":' : ',[{"i":') + text(e.spanId);
      open = true;
    }
    if (prev === null || e.parentSpanId !== prev.parentSpanId) {
      out += (open ? ',"p":' : ',[{"p":') + text(e.parentSpanId);
      open = true;
    }
    if (prev === null || e.path !== prev.path) {
      out += (open ? ',"h":' : ',[{"h":') + text(e.path);
      open = true;
    }
    if (prev === null || e.nodeId !== prev.nodeId) {
      out += (open ? ',"n":' : ',[{"n":') + text(e.nodeId);
      open = true;
    }
    out += open ? `},${event.json}]` : `,${event.json}`;
    prev = e;
  }
  return `${out}]`;
}

/** True for a row's decoded data written in the event log format. */
export function isEventLog(decoded: unknown): decoded is unknown[] {
  return Array.isArray(decoded) && (decoded[0] === EVENT_LOG_FORMAT || decoded[0] === EVENT_LOG_FORMAT_ITEMS);
}

function corrupt(what: string): StoreError {
  return new StoreError(`${what} is not a stored event (the row was changed outside Switchboard)`, { code: 'store_corrupt' });
}

const isText = (v: unknown): v is string => typeof v === 'string';
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * Reads a row in the event log format (see {@link encodeEventLog}) into `out`: the events after
 * `afterSeq`, stopping once `out` holds `limit`. Each event's data is the event as it was stamped
 * (its fields, then the envelope's), exactly what the row's writer was handed.
 */
export function readEventLog(rowRunId: string, items: readonly unknown[], afterSeq: number, limit: number, out: StoredEvent[], what: string): void {
  let runId = rowRunId;
  let seq = Number.NaN;
  let at = Number.NaN;
  let traceId: unknown;
  let spanId: unknown;
  let parentSpanId: unknown;
  let path: unknown;
  let nodeId: unknown;
  const withItems = items[0] === EVENT_LOG_FORMAT_ITEMS;
  for (let i = 1; i < items.length; i++) {
    const item = items[i];
    let body: unknown = item;
    seq += 1;
    if (Array.isArray(item) && !(withItems && typeof item[0] === 'number')) {
      const changes = item[0] as Record<string, unknown> | null;
      body = item[1];
      if (item.length !== 2 || typeof changes !== 'object' || changes === null) throw corrupt(what);
      if ('r' in changes) runId = changes.r as string;
      if ('s' in changes) seq = changes.s as number;
      if ('a' in changes) at = changes.a as number;
      if ('t' in changes) traceId = changes.t;
      if ('i' in changes) spanId = changes.i;
      if ('p' in changes) parentSpanId = changes.p;
      if ('h' in changes) path = changes.h;
      if ('n' in changes) nodeId = changes.n;
    }
    if (seq <= afterSeq) continue;
    if (withItems && Array.isArray(body)) body = expandStepItem(body);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw corrupt(what);
    const type = (body as Record<string, unknown>).type;
    if (
      !isText(type) ||
      !isText(runId) ||
      !Number.isInteger(seq) ||
      !isTime(at) ||
      !isText(traceId) ||
      !isText(spanId) ||
      !(parentSpanId === null || isText(parentSpanId)) ||
      !isText(path) ||
      !(nodeId === null || isText(nodeId))
    ) {
      throw corrupt(what);
    }
    const data = withEnvelope(body as Record<string, unknown>, { runId, seq, at, traceId, spanId, parentSpanId, path, nodeId });
    out.push({ runId: rowRunId, seq, type, at, data });
    if (out.length >= limit) return;
  }
}
