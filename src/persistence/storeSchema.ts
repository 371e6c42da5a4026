const tables = (json: string, bigint: string) => `
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  graph_name TEXT NOT NULL,
  graph_hash TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  status TEXT NOT NULL,
  snapshot ${json},
  version INTEGER NOT NULL,
  owner TEXT,
  lease_expires_at ${bigint},
  wait_reason TEXT,
  output_text TEXT,
  input_text TEXT,
  error TEXT,
  last_seq INTEGER NOT NULL DEFAULT 0,
  created_at ${bigint} NOT NULL,
  updated_at ${bigint} NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status, created_at);
CREATE TABLE IF NOT EXISTS events (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  at ${bigint} NOT NULL,
  data ${json} NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS steps (
  run_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  data ${json} NOT NULL,
  PRIMARY KEY (run_id, n)
);
CREATE TABLE IF NOT EXISTS step_runs (
  run_id TEXT NOT NULL,
  step_key TEXT NOT NULL,
  step INTEGER NOT NULL,
  data ${json} NOT NULL,
  PRIMARY KEY (run_id, step_key)
);
CREATE TABLE IF NOT EXISTS journal (
  run_id TEXT NOT NULL,
  step INTEGER NOT NULL,
  call_key TEXT NOT NULL,
  value ${json} NOT NULL,
  created_at ${bigint} NOT NULL,
  PRIMARY KEY (run_id, step, call_key)
);
`;

/** The tables both stores create (same columns; JSON kept as text so both store the same bytes). */
export const RUN_STORE_SCHEMA = {
  sqlite: tables('TEXT', 'INTEGER'),
  // A table made before the input column was added gets it (SQLite: see SqliteRunStore).
  postgres: `${tables('TEXT', 'BIGINT')}\nALTER TABLE runs ADD COLUMN IF NOT EXISTS input_text TEXT;\n`,
};
