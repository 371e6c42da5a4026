import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const db = join(mkdtempSync(join(tmpdir(), 'sb-route-')), 'runs.db');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, ['bin/switchboard.js', '--graphs', 'test/fixtures/unmatchedRouteGraph.ts', '--db', db, ...args], {
    encoding: 'utf8',
    env: { ...process.env, SWITCHBOARD_DATABASE_URL: '', OPENAI_API_KEY: '' },
  });

describe('the CLI trace shows routing diagnostics', () => {
  it('prints a router answer its route map does not have, live and in the stored run', () => {
    const run = cli('run', 'go', '--graph', 'unmatched');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('⚠ review: router answered "acept", not in its route map (accept, revise); group skipped');
    expect(run.stdout).toContain('path: review → fallback');
    const runId = /run (\S+): completed/.exec(run.stdout)![1]!;
    const shown = cli('show', runId);
    expect(shown.stdout).toMatch(/route\.unmatched\s+review\s+answer "acept" not in route map \(accept, revise\)/);
  }, 120_000);
});
