import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./fixtures/killChild.ts', import.meta.url));
const POINTS = ['draft', 'a', 'b', 'c', 'merge', 'revise', 'publish'].flatMap((s) => [`${s}:before`, `${s}:after`]);

function child(args: string[], env: Record<string, string>): Promise<{ signal: NodeJS.Signals | null; output: unknown; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('error', reject);
    proc.on('close', (_code, signal) => {
      const line = out.trim().split('\n').filter(Boolean).at(-1);
      resolve({ signal, output: line === undefined ? null : JSON.parse(line), stderr: err });
    });
  });
}

describe('kill -9 recovery of a durable workflow', () => {
  it('recovers runs SIGKILLed at 20 points (fan-out branches, gate retries) to the uninterrupted output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-wf-kill-'));
    const env = { SWITCHBOARD_DB: join(dir, 'runs.db'), SWITCHBOARD_DATABASE_URL: '' };
    const baseline = await child(['start', 'baseline'], env);
    expect(baseline.output, baseline.stderr).toMatchObject({ status: 'completed' });
    const expected = (baseline.output as { output: string }).output;
    expect(expected).toBe('published:draft(order)+a|draft(order)+b|draft(order)+c revised');
    let x = 11;
    const trials = [...POINTS];
    while (trials.length < 20) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      trials.push(POINTS[x % POINTS.length]!);
    }
    for (const [i, point] of trials.entries()) {
      const runId = `kill-${i}-${point.replace(':', '-')}`;
      const killed = await child(['start', runId], { ...env, KILL_AT: point });
      expect(killed.signal, `${point}: ${killed.stderr}`).toBe('SIGKILL');
      const recovered = await child(['recover'], env);
      const outcome = (recovered.output as Array<{ runId: string; status: string; output: unknown }>).find((o) => o.runId === runId);
      expect(outcome, `${point}: ${JSON.stringify(recovered.output)} ${recovered.stderr}`).toMatchObject({ status: 'completed', output: expected });
    }
  }, 900_000);
});
