import { RunRecord, SNAPSHOT_SCHEMA_VERSION, type NewRun, type RunPatch } from './RunStore.js';
import { StoreError } from './StoreError.js';

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

/** Parses a row into a record; a row that does not parse is reported, never cast. */
export function rowToRecord(row: RunRow): RunRecord {
  const parsed = RunRecord.safeParse({
    runId: row.run_id,
    graphName: row.graph_name,
    graphHash: row.graph_hash,
    schemaVersion: num(row.schema_version),
    status: row.status,
    snapshot: row.snapshot === null ? null : JSON.parse(row.snapshot),
    version: num(row.version),
    owner: row.owner,
    leaseExpiresAt: row.lease_expires_at === null ? null : num(row.lease_expires_at),
    waitReason: row.wait_reason,
    outputText: row.output_text,
    error: row.error === null ? null : JSON.parse(row.error),
    lastSeq: num(row.last_seq),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  });
  if (!parsed.success) {
    throw new StoreError(`stored run ${row.run_id} does not match the run schema: ${parsed.error.message}`, { code: 'store_corrupt' });
  }
  return parsed.data;
}

/** Column values for a new run. */
export function newRunColumns(run: NewRun, now: number): Record<string, unknown> {
  return {
    run_id: run.runId,
    graph_name: run.graphName,
    graph_hash: run.graphHash,
    schema_version: SNAPSHOT_SCHEMA_VERSION,
    status: run.status,
    snapshot: run.snapshot === undefined || run.snapshot === null ? null : JSON.stringify(run.snapshot),
    version: 1,
    owner: run.owner,
    lease_expires_at: run.leaseExpiresAt,
    wait_reason: null,
    output_text: null,
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

/** Column/value pairs for a patch (JSON fields serialized). */
export function patchColumns(patch: RunPatch): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const key of Object.keys(patch) as Array<keyof RunPatch>) {
    const value = patch[key];
    if (value === undefined) continue;
    const json = key === 'snapshot' || key === 'error';
    out.push([PATCH_COLUMNS[key], json && value !== null ? JSON.stringify(value) : value]);
  }
  return out;
}
