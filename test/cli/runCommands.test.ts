import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const db = join(mkdtempSync(join(tmpdir(), 'sb-cli-')), 'runs.db');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, ['bin/switchboard.js', '--db', db, ...args], { encoding: 'utf8', env: { ...process.env, SWITCHBOARD_DATABASE_URL: '' } });

describe('stored-run commands', () => {
  it('start says how to resume a run that waits, and the command it prints resumes it', () => {
    const started = cli('start', 'refund-approval', 'Refund SO20261001 please');
    expect(started.status, started.stderr).toBe(3);
    const runId = /^run (\S+): waiting$/m.exec(started.stdout)?.[1];
    expect(runId).toBeDefined();
    const hint = new RegExp(`^to resume: switchboard resume ${runId} --reply "<reply>"`, 'm');
    expect(started.stdout).toMatch(hint);
    const resumed = cli('resume', runId!, '--reply', 'approved');
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).not.toContain('to resume:');
  });

  it('starts, lists, shows, resumes once, refuses a second resume, cancels and recovers', () => {
    const started = cli('start', 'refund-approval', 'Refund SO20261001 please', '--json');
    expect(started.status, started.stderr).toBe(3);
    const run = JSON.parse(started.stdout) as { runId: string; status: string; waiting: { nodeId: string; reason: string } };
    expect(run).toMatchObject({ status: 'waiting', waiting: { nodeId: 'approve', reason: 'approve the refund for SO20261001' } });

    const listed = cli('runs', '--status', 'waiting');
    expect(listed.stdout).toContain(run.runId);
    expect(listed.stdout).toContain('waits: approve the refund for SO20261001');
    const asJson = JSON.parse(cli('runs', '--json').stdout) as Array<{ runId: string; path: string[] }>;
    expect(asJson.find((r) => r.runId === run.runId)?.path).toEqual(['draft', 'approve']);

    const shown = cli('show', run.runId);
    expect(shown.stdout).toContain('status waiting');
    expect(shown.stdout).toContain('path: draft → approve');
    expect(shown.stdout).toMatch(/run\.waiting\s+approve\s+approve the refund for SO20261001/);

    const resumed = cli('resume', run.runId, '--reply', 'approved: 599 CNY');
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`run ${run.runId}: completed`);
    expect(resumed.stdout).toContain('answer: Refund for SO20261001: approved: 599 CNY');

    const again = cli('resume', run.runId, '--reply', 'twice');
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('[run_finished]');

    const other = JSON.parse(cli('start', 'refund-approval', 'SO20261004', '--json').stdout) as { runId: string };
    expect(cli('cancel', other.runId).stdout).toContain(`run ${other.runId}: cancelled`);
    expect(cli('cancel', other.runId).stderr).toContain('[run_finished]');
    expect(cli('recover').stdout).toContain('nothing to recover');
  }, 300_000);

  it('explains bad arguments', () => {
    expect(cli('runs', '--status', 'sleeping').stderr).toContain('--status must be one of queued, running, waiting');
    // No reply is how a run paused at a breakpoint goes on, so an unknown run is what is wrong here.
    expect(cli('resume', 'x').stderr).toContain('[run_not_found]');
    expect(cli('resume', 'x', '--reply', 'ok', '--reply-json', '{}').stderr).toContain('give the reply with exactly one of --reply <text> or --reply-json <json>');
    expect(cli('resume', 'x', '--reply-json', '{nope').stderr).toContain('--reply-json is not JSON');
    expect(cli('show', 'no-such-run').stderr).toContain('run not found: no-such-run [run_not_found]');
    expect(cli('start', 'nope', 'x').stderr).toContain('no graph named "nope" is registered; known: customer-service, refund-approval');
  }, 300_000);
});
