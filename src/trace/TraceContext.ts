import { randomBytes } from 'node:crypto';

/**
 * Where a run sits in a trace: the trace it belongs to, the run's own span, the span it was started
 * from (a coordinator node's span for a specialist run), and its path (`root`, `root/rag[1]`).
 * Plain JSON, kept in the machine context so a resumed run continues the same trace.
 */
export interface TraceContext {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  path: string;
}

// Span ids are made on every step while someone listens: take them from a pool of random bytes,
// turned into hex digits once per pool, instead of asking the system for 8 bytes each time. Each id
// is copied out of the pool's bytes: a slice of one pool string would be a view that keeps the whole
// 8 KiB pool alive for as long as any id from it is kept (a run's stored context, a recorder).
const POOL_SIZE = 8 * 512;
const refill = (): Buffer => Buffer.from(randomBytes(POOL_SIZE).toString('hex'), 'latin1');
let pool = refill();
let offset = 0;

/** A new span id's 16 digits, copied out of the pool as a flat string of its own (about half the time of `toString`). */
function randomHex16(): string {
  if (offset + 16 > pool.length) {
    pool = refill();
    offset = 0;
  }
  const p = pool;
  const o = offset;
  offset += 16;
  return String.fromCharCode(p[o]!, p[o + 1]!, p[o + 2]!, p[o + 3]!, p[o + 4]!, p[o + 5]!, p[o + 6]!, p[o + 7]!, p[o + 8]!, p[o + 9]!, p[o + 10]!, p[o + 11]!, p[o + 12]!, p[o + 13]!, p[o + 14]!, p[o + 15]!);
}

function randomHex(bytes: number): string {
  const digits = bytes * 2;
  if (offset + digits > pool.length) {
    pool = refill();
    offset = 0;
  }
  offset += digits;
  return pool.toString('latin1', offset - digits, offset);
}

/** A new 16-hex-digit span id (the OpenTelemetry format). */
export function newSpanId(): string {
  return randomHex16();
}

/** A new 32-hex-digit trace id (the OpenTelemetry format). */
export function newTraceId(): string {
  return randomHex(16);
}

/** The trace of a top-level run, or of a child run started from `parent`'s span `fromSpanId`. */
export function newTraceContext(parent?: { traceId: string; fromSpanId: string; path: string }): TraceContext {
  if (parent === undefined) return { traceId: newTraceId(), spanId: newSpanId(), parentSpanId: null, path: 'root' };
  return { traceId: parent.traceId, spanId: newSpanId(), parentSpanId: parent.fromSpanId, path: parent.path };
}
