import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('switchboard command', () => {
  it('prints its version and usage', () => {
    expect(execFileSync(process.execPath, ['bin/switchboard.js', '--version'], { encoding: 'utf8' }).trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(execFileSync(process.execPath, ['bin/switchboard.js', '--help'], { encoding: 'utf8' })).toContain('Usage: switchboard');
  });

  it('exits 2 on an unknown command and says which', () => {
    const result = spawnSync(process.execPath, ['bin/switchboard.js', 'frobnicate'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
  });

  it('ends quietly when the reader closes the pipe early (`… | head`), with no EPIPE stack trace', () => {
    // The export of the flagship is larger than a pipe's buffer, so writes go on after head has left.
    const script = `"${process.execPath}" bin/switchboard.js export customer-service --format json | head -c 10 >/dev/null; echo "exit=\${PIPESTATUS[0]}" >&2`;
    const result = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(result.stderr).toContain('exit=0');
  }, 120_000);

  it('finishes a run whose reader has gone (`run … | head -1`): the run is stored as it ended, with its own exit code', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sb-epipe-')), 'runs.db');
    const env = { ...process.env, SWITCHBOARD_DATABASE_URL: '', OPENAI_API_KEY: '' };
    // The order tools' first call hangs until it times out, and the second spends the tool budget:
    // the run is still going when the first line of its trace meets the closed pipe, and it ends
    // waiting for a person (exit 3).
    const args = ['run', 'Check order SO20261001 for me and see how much can still be refunded.', '--fault', 'tool_timeout', '--tool-budget', '2'];
    const child = spawn(process.execPath, ['bin/switchboard.js', '--db', db, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the reader leaves before the first line
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    const listed = spawnSync(process.execPath, ['bin/switchboard.js', '--db', db, 'runs', '--json'], { encoding: 'utf8', env });
    const runs = JSON.parse(listed.stdout) as Array<{ status: string }>;
    expect(runs.map((r) => r.status)).toEqual(['waiting']);
    expect(status).toBe(3);
  }, 120_000);
});
