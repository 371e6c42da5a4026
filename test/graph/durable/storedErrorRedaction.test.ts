import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRecorder, SqliteRunStore, StateGraph, SwitchboardError } from '../../../src/index.js';

const SECRET = 'sv-stored-error-secret-0123456789';
const CREDENTIALS = [SECRET, 'rt-9f8e7d6c5b4a3f2e1d0c', 'cs-0a1b2c3d4e5f6a7b', 'hunter2hunter2'];

afterEach(() => {
  delete process.env.STORED_ERROR_TEST_API_KEY;
});

/** A SQLite store in a fresh folder, with the bytes of its files for a search. */
function sqlite(options: { maxValueBytes?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'sb-stored-error-'));
  const file = join(dir, 'runs.db');
  const store = new SqliteRunStore({ file, ...options });
  const bytes = () => [file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f).toString('latin1')).join('\n');
  return { store, file, bytes, close: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
}

const found = (text: string) => CREDENTIALS.filter((c) => text.includes(c));

describe('what a failed run stores', () => {
  const throwers: Record<string, () => never> = {
    'an error whose name holds a secret': () => {
      const error = new SwitchboardError('upstream refused', { code: 'node_failed' });
      Object.defineProperty(error, 'name', { value: `Bearer ${SECRET}` });
      throw error;
    },
    'an error whose code holds a secret': () => {
      throw new SwitchboardError('upstream refused', { code: `auth ${SECRET}` as never });
    },
    'a thrown OAuth error body (credentials no environment variable names)': () => {
      throw { error: 'invalid_grant', refresh_token: CREDENTIALS[1], client_secret: CREDENTIALS[2], password: CREDENTIALS[3] };
    },
  };
  for (const [name, thrower] of Object.entries(throwers)) {
    // (The run's result, returned in process to the caller, keeps the error as the node threw it.)
    it(`keeps no credential of ${name}: run row, snapshot, events, the file, a recorder`, async () => {
      process.env.STORED_ERROR_TEST_API_KEY = SECRET;
      const target = sqlite();
      try {
        const recorder = new MemoryRecorder();
        const run = await new StateGraph({ name: 'fails', maxSteps: 3 }).addNode('a', thrower).start('a').run('go', { store: target.store, recorders: [recorder] });
        expect(run.status).toBe('failed');
        const row = await target.store.getRun(run.runId);
        expect(row?.error, 'the run row keeps an error').not.toBeNull();
        expect(found(JSON.stringify(row))).toEqual([]);
        expect(found(JSON.stringify(await target.store.listEvents(run.runId)))).toEqual([]);
        expect(found(JSON.stringify(recorder.events))).toEqual([]);
        await target.store.close();
        expect(found(target.bytes())).toEqual([]);
      } finally {
        await target.close();
      }
    });
  }
});

describe('a custom event whose type holds a secret', () => {
  it('is stored with the redacted type, in its row and in the row column, when its commit spans several rows', async () => {
    process.env.STORED_ERROR_TEST_API_KEY = SECRET;
    // A small row limit: each event of the commit gets a row of its own, keyed by its type.
    const target = sqlite({ maxValueBytes: 1024 });
    try {
      const node = {
        execute: () => ({ outputText: 'x' }),
        executeStream: (_ctx: unknown, _request: unknown, emit: (event: object) => void) => {
          emit({ type: `progress ${SECRET}`, pct: 50 });
          emit({ type: 'chunk', text: 'lorem ipsum '.repeat(50) });
          return { outputText: 'x' };
        },
      };
      let runId = '';
      const types: string[] = [];
      for await (const event of new StateGraph({ name: 'custom', maxSteps: 3 }).addNode('a', node as never).start('a').stream('go', { store: target.store })) {
        runId = event.runId;
        types.push(event.type);
      }
      expect(types.some((t) => t.startsWith('progress '))).toBe(true);
      const stored = await target.store.listEvents(runId);
      expect(stored.map((e) => e.type)).toContain('progress [redacted]');
      await target.store.close();
      const db = new Database(target.file, { readonly: true });
      const columns = db.prepare('select type from events').all() as Array<{ type: string }>;
      db.close();
      expect(columns.map((c) => c.type)).toContain('progress [redacted]');
      expect(found(target.bytes())).toEqual([]);
    } finally {
      await target.close();
    }
  });
});
