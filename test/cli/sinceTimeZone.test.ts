import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore } from '../../src/index.js';
import { graphs } from '../fixtures/analyticsGraphs.js';
import { runCliAll } from '../support/runCli.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-since-tz-'));
const db = join(dir, 'runs.db');
const base = ['--graphs', 'test/fixtures/analyticsGraphs.ts', '--db', db, 'analyze', '--graph', 'echo', '--json'];
// New York is 5 hours behind UTC in December: a time read there is 5 hours later in UTC.
const env = { TZ: 'America/New_York' };

beforeAll(async () => {
  // Two stored echo runs, created at 2026-11-30T23:30Z and 2026-12-01T02:00Z.
  for (const at of [Date.UTC(2026, 10, 30, 23, 30), Date.UTC(2026, 11, 1, 2, 0)]) {
    const store = new SqliteRunStore({ file: db, now: () => at });
    await graphs[1]!.run('hi', { store });
    await store.close();
  }
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** How many echo runs `analyze --since <since>` counts (0 when it prints no analysis). */
const runsCounted = (stdout: string) => (JSON.parse(stdout) as { echo?: { runs: number } }).echo?.runs ?? 0;

describe('switchboard analyze --since in a time zone other than UTC', () => {
  it('reads a date or a date-time without a zone as UTC, and honours Z or an offset', async () => {
    const cases: Array<[string, number]> = [
      ['2026-12-01', 1],
      ['2026-11-30', 2],
      ['2026-12-01T01:00', 1],
      ['2026-12-01 01:00:00', 1],
      ['2026-11-30T23:00', 2],
      ['2026-11-30T23:30:00.001', 1],
      ['2026-12-01T02:00:00.001Z', 0],
      ['2026-12-01T02:00Z', 1],
      ['2026-11-30T20:00-05:00', 1],
      ['2026-12-01T03:59+0200', 1],
      ['2026-12-01T04:01+02:00', 0],
    ];
    const results = await runCliAll([...cases.map(([since]) => [...base, '--since', since]), ['analyze', '--help']], { env });
    expect(results.at(-1)!.stdout.replace(/\s+/g, ' ')).toContain('UTC unless it ends in Z or an offset (2026-12-01, 2026-12-01T08:00, 2026-12-01T08:00+02:00)');
    cases.forEach(([since, runs], i) => {
      const r = results[i]!;
      expect(r.status, `--since ${since}: ${r.stderr}`).toBe(0);
      expect(runsCounted(r.stdout), `--since ${since}`).toBe(runs);
    });
  }, 120_000);

  it('refuses what is not a date, time of day or offset, naming --since and giving an example (exit 2)', async () => {
    const cases: Array<[string, string]> = [
      ['2026-12-01T08', '--since must be an ISO date or date-time'],
      ['2026-12-01T8:00', '--since must be an ISO date or date-time'],
      ['12/01/2026', '--since must be an ISO date or date-time'],
      ['2026-12-01T24:00', '--since: 24:00 is not a time of day'],
      ['2026-12-01T23:60', '--since: 23:60 is not a time of day'],
      ['2026-12-01T10:00:60Z', '--since: 10:00:60 is not a time of day'],
      ['2026-12-01T10:00+24:00', '--since: +24:00 is not a time-zone offset'],
      ['2026-13-01', '--since: there is no month 13'],
      ['2026-02-29', '--since: 2026-02 has no day 29'],
    ];
    const results = await runCliAll(cases.map(([since]) => [...base, '--since', since]), { env });
    cases.forEach(([since, message], i) => {
      const r = results[i]!;
      expect(r.status, `--since ${since}: ${r.stdout}`).toBe(2);
      const error = (JSON.parse(r.stderr) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('usage');
      expect(error.message).toContain(message);
      expect(error.message).toContain(`received "${since}"`);
      expect(error.message).toContain('2026-12-01T08:00');
    });
  }, 120_000);
});
