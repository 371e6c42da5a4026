import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteRunStore } from '../../src/index.js';
import { positiveIntFromEnv } from '../support/positiveIntFromEnv.js';

/**
 * Several processes opening one new SQLite run store at the same moment (two `switchboard`
 * commands started together on a new --db): each must open it, none may fail with "database is
 * locked". Before openSqliteFile retried a busy open, about one open in a hundred failed so on a
 * busy 2-core machine (at least three of 240, in 40 rounds of 6), never while the machine was quiet; this
 * runs ROUNDS rounds of 8 (SWITCHBOARD_SQLITE_OPEN_ROUNDS, default 4).
 */
const ROUNDS = positiveIntFromEnv('SWITCHBOARD_SQLITE_OPEN_ROUNDS', 4);
const PROCESSES = 8;
const dir = mkdtempSync(join(tmpdir(), 'sb-sqlite-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Waits for the common start time, then opens the store and lists its runs.
const CHILD = `
  const { SqliteRunStore } = await import('switchboard');
  const [file, at] = process.argv.slice(-2);
  while (Date.now() < Number(at)) {}
  try {
    const store = new SqliteRunStore({ file });
    await store.listRuns({ limit: 1 });
    await store.close();
    process.stdout.write('opened');
  } catch (error) {
    process.stdout.write('failed: ' + error.message);
  }`;

// The children load the build, as the tests' other children do, or the sources through tsx.
const LOADER = (process.env.NODE_OPTIONS ?? '').includes('switchboard-source') ? ['--import', 'tsx'] : [];

function openAt(file: string, at: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...LOADER, '--input-type=module', '-e', CHILD, file, String(at)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(out === '' ? `no output: ${err}` : out));
  });
}

describe('a new SQLite run store opened by several processes at once', () => {
  it(`opens in every one of ${PROCESSES} processes started together, ${ROUNDS} times`, async () => {
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const file = join(dir, `round${round}.db`);
      // Late enough for every child to have loaded the package (they load it at the same time too).
      const at = Date.now() + 2000;
      const outcomes = await Promise.all(Array.from({ length: PROCESSES }, () => openAt(file, at)));
      failures.push(...outcomes.filter((o) => o !== 'opened').map((o) => `round ${round}: ${o}`));
      const store = new SqliteRunStore({ file });
      expect(await store.listRuns({ limit: 1 })).toEqual([]);
      await store.close();
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
