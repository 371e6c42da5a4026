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
});
