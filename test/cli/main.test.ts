import { execFileSync, spawnSync } from 'node:child_process';
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
});
