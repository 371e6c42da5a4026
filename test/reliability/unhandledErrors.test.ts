import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Runs one suite of test/fixtures/unhandled under the project's vitest settings, in a child process. */
function runSuite(suite: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/fixtures/unhandled/vitest.config.ts', '--root', '.', '--color=false'], {
      env: { ...process.env, SWITCHBOARD_UNHANDLED_SUITE: suite, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('the test suite itself', () => {
  it('fails the run on an unhandled rejection or an uncaught exception, even when every test passed', async () => {
    const [clean, rejection, exception] = await Promise.all([runSuite('clean'), runSuite('rejection'), runSuite('exception')]);
    expect(clean.code, clean.output).toBe(0);
    expect(rejection.code, rejection.output).toBe(1);
    expect(rejection.output).toContain('Unhandled Rejection');
    expect(rejection.output).toContain('deliberate unhandled rejection');
    expect(exception.code, exception.output).toBe(1);
    expect(exception.output).toContain('Uncaught Exception');
    expect(exception.output).toContain('deliberate uncaught exception');
    for (const run of [rejection, exception]) expect(run.output).toMatch(/Tests\s+1 passed/);
  });
});
