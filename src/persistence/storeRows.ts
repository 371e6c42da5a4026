import { checkEvent, checkEventList, checkJournalKey, checkNewRun, checkPatch } from './checkStoreInput.js';
import { RunRecord, SNAPSHOT_SCHEMA_VERSION, type NewRun, type RunPatch, type StoredEvent } from './RunStore.js';
import { StoreError } from './StoreError.js';
import { decodeStored, encodeStored, MAX_STORED_BYTES } from './storedJson.js';
import { applySnapshotPatch } from './snapshotPatch.js';
import { eventData } from './eventRows.js';
import { inputTextOf } from './runSearch.js';

/** A runs row as both SQL stores read it (snake_case columns, JSON as text, times as numbers). */
export interface RunRow {
  run_id: string;
  graph_name: string;
  graph_hash: string;
  schema_version: number | string;
  status: string;
  snapshot: string | null;
  version: number | string;
  owner: string | null;
  lease_expires_at: number | string | null;
  wait_reason: string | null;
  output_text: string | null;
  error: string | null;
  last_seq: number | string;
  created_at: number | string;
  updated_at: number | string;
}

const num = (v: number | string): number => (typeof v === 'number' ? v : Number(v));

/** Parses stored JSON text; text that does not parse is a corrupt row, reported, never thrown as a SyntaxError. */
export function parseStored(text: string, what: string, parse: (text: string) => unknown = JSON.parse): unknown {
  try {
    return parse(text);
  } catch (cause) {
    if (cause instanceof StoreError) throw cause;
    throw new StoreError(`${what} is not valid JSON (${(cause as Error).message}); the row was changed outside Switchboard`, { code: 'store_corrupt', cause });
  }
}

/** Parses a row into a record; a row that does not parse is reported, never cast. */
export function rowToRecord(row: RunRow): RunRecord {
  const parsed = RunRecord.safeParse({
    runId: row.run_id,
    graphName: row.graph_name,
    graphHash: row.graph_hash,
    schemaVersion: num(row.schema_version),
    status: row.status,
    snapshot: row.snapshot === null ? null : parseStored(row.snapshot, `stored snapshot of run ${row.run_id}`, decodeStored),
    version: num(row.version),
    owner: row.owner,
    leaseExpiresAt: row.lease_expires_at === null ? null : num(row.lease_expires_at),
    waitReason: row.wait_reason,
    outputText: row.output_text,
    error: row.error === null ? null : parseStored(row.error, `stored error of run ${row.run_id}`),
    lastSeq: num(row.last_seq),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  });
  if (!parsed.success) {
    throw new StoreError(`stored run ${row.run_id} does not match the run schema: ${parsed.error.message}`, { code: 'store_corrupt' });
  }
  return parsed.data;
}

/**
 * The record of a run row just written from {@link newRunColumns}: its values were checked on the
 * way in, so it is built as {@link rowToRecord} would read it back, without a schema pass; the
 * snapshot is decoded from the text that was written (the stored form, not the caller's object).
 */
export function newRunRecord(cols: Record<string, unknown>): RunRecord {
  const row = cols as unknown as RunRow & { schema_version: number; version: number; last_seq: number; created_at: number; updated_at: number; lease_expires_at: number | null };
  return {
    runId: row.run_id,
    graphName: row.graph_name,
    graphHash: row.graph_hash,
    schemaVersion: row.schema_version,
    status: row.status as RunRecord['status'],
    snapshot: row.snapshot === null ? null : decodeStored(row.snapshot),
    version: row.version,
    owner: row.owner,
    leaseExpiresAt: row.lease_expires_at,
    waitReason: null,
    outputText: null,
    error: null,
    lastSeq: row.last_seq,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Column values for a new run, checked (`store_encoding`, `not_json`, `value_too_large`). */
export function newRunColumns(run: NewRun, now: number, limit: number = MAX_STORED_BYTES): Record<string, unknown> {
  checkNewRun(run);
  return {
    run_id: run.runId,
    graph_name: run.graphName,
    graph_hash: run.graphHash,
    schema_version: SNAPSHOT_SCHEMA_VERSION,
    status: run.status,
    snapshot: run.snapshot === undefined || run.snapshot === null ? null : encodeStored(run.snapshot, 'snapshot', limit),
    version: 1,
    owner: run.owner,
    lease_expires_at: run.leaseExpiresAt,
    wait_reason: null,
    output_text: null,
    // What a search finds the run by besides its id and answer (not part of the record).
    input_text: inputTextOf(run.snapshot),
    error: null,
    last_seq: 0,
    created_at: now,
    updated_at: now,
  };
}

const PATCH_COLUMNS: Record<keyof RunPatch, string> = {
  status: 'status',
  snapshot: 'snapshot',
  owner: 'owner',
  leaseExpiresAt: 'lease_expires_at',
  waitReason: 'wait_reason',
  outputText: 'output_text',
  error: 'error',
  lastSeq: 'last_seq',
};

/** Column/value pairs for a patch, checked, with JSON fields serialized (the snapshot with its value table). */
export function patchColumns(patch: RunPatch, limit: number = MAX_STORED_BYTES, runId = ''): Array<[string, unknown]> {
  checkPatch(patch);
  const out: Array<[string, unknown]> = [];
  for (const key of Object.keys(patch) as Array<keyof RunPatch>) {
    const value = patch[key];
    if (value === undefined) continue;
    const column = PATCH_COLUMNS[key];
    let encoded: unknown = value;
    if (key === 'snapshot' && value !== null) encoded = encodeStored(value, 'snapshot', limit);
    if (key === 'error' && value !== null) encoded = encodeStored(value, 'error', limit);
    out.push([column, encoded]);
  }
  return out;
}

/** Each event's data as stored JSON, checked (`store_encoding`, `not_json`, `value_too_large`). */
export function encodeEvents(events: readonly StoredEvent[], limit: number = MAX_STORED_BYTES): string[] {
  checkEventList(events);
  return events.map((event, i) => {
    checkEvent(event, i);
    return eventData(event, limit);
  });
}

/** A journal entry's value as stored JSON, checked like events. */
export function encodeJournalValue(runId: string, step: number, key: string, value: unknown, limit: number = MAX_STORED_BYTES): string {
  checkJournalKey(runId, step, key);
  return encodeStored(value ?? null, `journal entry "${key}" (step ${step})`, limit);
}

/** Checks a store's `maxValueBytes` option. */
export function checkValueLimit(store: string, limit: unknown): number {
  if (limit === undefined) return MAX_STORED_BYTES;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1024 || limit > 512 * 1024 * 1024) {
    throw new StoreError(`${store}: maxValueBytes must be an integer from 1024 to 536870912 (512 MiB); received ${String(limit)}`, { code: 'store_config' });
  }
  return limit;
}

/**
 * The step records of one append as one row's text: each record is JSON without a raw newline
 * (`JSON.stringify` escapes them), so they are joined by newlines and split again on read.
 */
export function joinSteps(runId: string, steps: readonly string[], limit: number = MAX_STORED_BYTES): string {
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new StoreError(`appendSteps(${runId}): steps must be a non-empty list of encoded snapshot patches`, { code: 'store_encoding' });
  }
  for (const step of steps) {
    if (typeof step !== 'string' || step === '' || step.includes('\n')) {
      throw new StoreError(`appendSteps(${runId}): each step must be a snapshot patch encoded as one line of JSON`, { code: 'store_encoding' });
    }
    if (step.length * 3 > limit && Buffer.byteLength(step, 'utf8') > limit) {
      throw new StoreError(`a step record of run ${runId} takes ${Buffer.byteLength(step, 'utf8')} bytes; a stored value may take at most ${limit}`, { code: 'value_too_large' });
    }
  }
  return steps.join('\n');
}

/** The snapshot with the step rows (oldest first) applied: the run's latest snapshot. */
export function withSteps(snapshot: unknown, rows: readonly string[], runId: string): unknown {
  let out = snapshot;
  for (const row of rows) {
    for (const line of row.split('\n')) out = applySnapshotPatch(out, parseStored(line, `a step record of run ${runId}`, decodeStored));
  }
  return out;
}
