import { StoredRunStatus, type NewRun, type RunPatch, type StoredEvent } from './RunStore.js';
import { EncodedEvent } from './EncodedEvent.js';
import { StoreError } from './StoreError.js';

const PATCH_FIELDS: ReadonlySet<string> = new Set(['status', 'snapshot', 'owner', 'leaseExpiresAt', 'waitReason', 'outputText', 'error', 'lastSeq']);

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function refuse(field: string, expected: string, value: unknown): never {
  throw new StoreError(`${field} must be ${expected}; received ${describe(value)}`, { code: 'store_encoding' });
}

const isText = (v: unknown, max = Number.POSITIVE_INFINITY): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;
const isTime = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);
const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;

function checkNullableText(field: string, value: unknown): void {
  if (value !== null && typeof value !== 'string') refuse(field, 'a string or null', value);
}

/** Checks the columns of a new run before anything is written (`store_encoding` names a wrong field). */
export function checkNewRun(run: NewRun): void {
  if (typeof run !== 'object' || run === null) refuse('insertRun(run)', 'an object', run);
  if (!isText(run.runId, 200)) refuse('run.runId', 'a non-empty string of at most 200 characters', run.runId);
  if (!isText(run.graphName)) refuse('run.graphName', 'a non-empty string', run.graphName);
  if (typeof run.graphHash !== 'string') refuse('run.graphHash', 'a string', run.graphHash);
  if (!StoredRunStatus.safeParse(run.status).success) refuse('run.status', `one of ${StoredRunStatus.options.join(', ')}`, run.status);
  checkNullableText('run.owner', run.owner);
  if (run.leaseExpiresAt !== null && !isTime(run.leaseExpiresAt)) refuse('run.leaseExpiresAt', 'epoch milliseconds or null', run.leaseExpiresAt);
}

/** Checks a compare-and-set patch before anything is written. */
export function checkPatch(patch: RunPatch): void {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) refuse('updateRun(patch)', 'an object', patch);
  for (const key of Object.keys(patch)) {
    if (!PATCH_FIELDS.has(key)) throw new StoreError(`patch.${key} is not a run field; a patch may set ${[...PATCH_FIELDS].join(', ')}`, { code: 'store_encoding' });
  }
  if (patch.status !== undefined && !StoredRunStatus.safeParse(patch.status).success) refuse('patch.status', `one of ${StoredRunStatus.options.join(', ')}`, patch.status);
  for (const field of ['owner', 'waitReason', 'outputText'] as const) if (patch[field] !== undefined) checkNullableText(`patch.${field}`, patch[field]);
  if (patch.leaseExpiresAt !== undefined && patch.leaseExpiresAt !== null && !isTime(patch.leaseExpiresAt)) {
    refuse('patch.leaseExpiresAt', 'epoch milliseconds or null', patch.leaseExpiresAt);
  }
  if (patch.lastSeq !== undefined && !isCount(patch.lastSeq)) refuse('patch.lastSeq', 'a non-negative integer', patch.lastSeq);
  const error = patch.error as unknown;
  if (error !== undefined && error !== null) {
    const e = error as Record<string, unknown>;
    if (typeof error !== 'object' || typeof e.name !== 'string' || typeof e.code !== 'string' || typeof e.message !== 'string') {
      refuse('patch.error', '{ name, code, message } (strings) or null', error);
    }
  }
}

/** Checks that the events of a write are a list. */
export function checkEventList(events: unknown): asserts events is StoredEvent[] {
  if (!Array.isArray(events)) refuse('updateRun(events)', 'an array of events', events);
}

/**
 * Checks one event's columns; `field` names it in a refusal (a number `i` names it `events[i]`,
 * a name built only when something is refused: a store checks every event of every write).
 */
export function checkEvent(event: StoredEvent, field: string | number = 'event'): void {
  if (typeof event !== 'object' || event === null) refuse(eventField(field), 'an object', event);
  if (typeof event.runId !== 'string') refuse(`${eventField(field)}.runId`, 'a string', event.runId);
  if (!isCount(event.seq) || event.seq < 1) refuse(`${eventField(field)}.seq`, 'a positive integer', event.seq);
  if (!isText(event.type, 200)) refuse(`${eventField(field)}.type`, 'a non-empty string of at most 200 characters', event.type);
  if (!isTime(event.at)) refuse(`${eventField(field)}.at`, 'epoch milliseconds', event.at);
  // An encoded event's data is an object by construction; reading it would parse it.
  if (event instanceof EncodedEvent) return;
  if (typeof event.data !== 'object' || event.data === null || Array.isArray(event.data)) refuse(`${eventField(field)}.data`, 'an object', event.data);
}

const eventField = (field: string | number): string => (typeof field === 'number' ? `events[${field}]` : field);

/** Checks a journal entry's key columns. */
export function checkJournalKey(runId: string, step: number, key: string): void {
  if (typeof runId !== 'string') refuse('journal runId', 'a string', runId);
  if (!isCount(step)) refuse('journal step', 'a non-negative integer', step);
  if (!isText(key, 1000)) refuse('journal key', 'a non-empty string of at most 1000 characters', key);
}
