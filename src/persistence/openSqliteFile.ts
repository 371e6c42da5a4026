import Database from 'better-sqlite3';
import { RUN_STORE_SCHEMA } from './storeSchema.js';

/** How long opening a run store waits for other processes opening or setting up the same file. */
const OPEN_PATIENCE_MS = 10_000;

/** A synchronous sleep for the retries (the store's constructor is synchronous). */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/** Adds the input column to a runs table made before it existed (another process may add it at the same time). */
function addInputColumn(db: Database.Database): void {
  const columns = db.prepare('PRAGMA table_info(runs)').all() as Array<{ name: string }>;
  if (columns.some((c) => c.name === 'input_text')) return;
  try {
    db.exec('ALTER TABLE runs ADD COLUMN input_text TEXT');
  } catch (cause) {
    if (!/duplicate column/i.test((cause as Error).message)) throw cause;
  }
}

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_RECOVERY, SQLITE_BUSY_SNAPSHOT …). */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Opens the run store's SQLite file and sets it up: WAL, `synchronous = NORMAL`, a 5 s busy timeout,
 * the schema. Several processes opening a new file at once (two `switchboard` commands started
 * together) contend for it while one of them turns it to WAL and writes the schema, and SQLite can
 * answer "database is locked" at once there, without waiting on its busy timeout. So a busy file is
 * opened again, after 5, 10, 20 … 200 ms, for up to 10 s; any other error, or still busy after
 * that, is thrown.
 */
export function openSqliteFile(file: string): Database.Database {
  const deadline = Date.now() + OPEN_PATIENCE_MS;
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    const db = new Database(file, { timeout: 5000 });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec(RUN_STORE_SCHEMA.sqlite);
      addInputColumn(db);
      return db;
    } catch (error) {
      db.close();
      if (!isBusy(error) || Date.now() + pause > deadline) throw error;
      Atomics.wait(SLEEPER, 0, 0, pause);
    }
  }
}
