import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('../fixtures/durableAfterFullGc.ts', import.meta.url));
/** The store's write path: functions that read stored events on every commit. */
const WRITE_PATH = ['encodeEventLog', 'eventRows', 'firstSeqs'];

function traced(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--trace-opt', '--trace-deopt', '--import', 'tsx', CHILD], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the store’s write path across a full GC', () => {
  it('keeps its optimized code: no stored event’s shape dies between runs', async () => {
    const { code, output } = await traced();
    expect(code, output.slice(-2000)).toBe(0);
    expect(output).toContain('--- max-steps 1000');
    const [before, rest] = output.split('--- full GC\n');
    const [atGc] = rest!.split('--- after it\n');
    // The check means something only for code that was optimized before the GC.
    const optimized = WRITE_PATH.filter((name) => new RegExp(`completed optimizing [^\\n]*<JSFunction ${name} `).test(before!));
    expect(optimized.length, 'none of the write path was optimized in ten runs').toBeGreaterThan(0);
    // V8 drops a shape no object has at a full GC, and with it the optimized code that checks for it.
    const dropped = optimized.filter((name) => new RegExp(`SharedFunctionInfo ${name}>[^\\n]*reason: weak objects`).test(atGc!));
    expect(dropped).toEqual([]);
  }, 120_000);
});
