import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresTarget, sqliteTarget, type StoreTarget } from '../persistence/storeTargets.js';

const CHILD = fileURLToPath(new URL('./fixtures/fanOutKillChild.ts', import.meta.url));

interface Stored {
  status: string;
  outputText: string | null;
  reason: string | null;
}

function child(args: string[], env: Record<string, string>): Promise<{ signal: NodeJS.Signals | null; stored: Stored | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { env: { ...process.env, KILL_AT: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('error', reject);
    proc.on('close', (_code, signal) => {
      const line = out.trim().split('\n').filter(Boolean).at(-1);
      resolve({ signal, stored: line === undefined ? null : (JSON.parse(line) as Stored), stderr: err });
    });
  });
}

const INPUT = 'x !a y !b';
const EXPECTED = 'plain x|signed a:!a|plain y|signed b:!b';
/** Where a process dies, by the leg it dies in: the first leg (items run, a and b reach their gates), a's reply, b's reply. */
const LEGS: string[][] = [
  ['split:after', 'plain-0:before', 'plain-2:after', 'prep-a:before', 'prep-b:after', 'waiting'],
  ['sign-a:before', 'sign-a:after'],
  ['sign-b:before', 'sign-b:after', 'join:before', 'join:after'],
];

/** Every point on SQLite; on PostgreSQL one of each kind (a test of many child processes is slow on a busy machine). */
const stores: Array<[string, () => StoreTarget, string[]]> = [
  ['SQLite', sqliteTarget, LEGS.flat()],
  ['PostgreSQL', postgresTarget, ['plain-0:before', 'prep-a:before', 'waiting', 'sign-a:after', 'sign-b:before', 'join:after']],
];

describe('kill -9 of a durable run whose fan-out items wait for a person', () => {
  const opened: StoreTarget[] = [];
  afterEach(async () => {
    for (const t of opened.splice(0)) await t.close();
  });

  for (const [name, make, points] of stores) {
    it(`recovers at every point (items running, waiting, after each reply) to the uninterrupted output, each leg in another process (${name})`, async () => {
      const target = make();
      opened.push(target);
      const env = target.env;
      for (const [i, at] of points.entries()) {
        const runId = `fan-kill-${i}-${at.replace(':', '-')}`;
        const leg = LEGS.findIndex((l) => l.includes(at));
        const legs: Array<() => Promise<{ signal: NodeJS.Signals | null; stored: Stored | null; stderr: string }>> = [
          () => child(['start', runId, INPUT], { ...env, KILL_AT: leg === 0 ? at : '' }),
          () => child(['resume', runId, 'PASS'], { ...env, KILL_AT: leg === 1 ? at : '' }),
          () => child(['resume', runId, 'PASS: fine'], { ...env, KILL_AT: leg === 2 ? at : '' }),
        ];
        const expected = [
          { status: 'waiting', reason: expect.stringContaining('item 2 ("approval-a") of fork waits') },
          { status: 'waiting', reason: expect.stringContaining('item 4 ("approval-b") of fork waits') },
          { status: 'completed', outputText: EXPECTED },
        ];
        for (const [n, run] of legs.entries()) {
          let done = await run();
          if (n === leg) {
            expect(done.signal, `${at}: ${done.stderr}`).toBe('SIGKILL');
            // Another process recovers the interrupted run (one that was killed while waiting is left waiting).
            done = await child(['recover', runId], env);
          }
          expect(done.stored, `${at}, leg ${n}: ${done.stderr}`).toMatchObject(expected[n]!);
        }
      }
    }, 900_000);
  }

  it('a HumanGate deadline in an item passes while no process runs: recoverRuns in the next one takes onTimeout for each waiting item', async () => {
    const target = sqliteTarget();
    opened.push(target);
    const env = { ...target.env, TIMEOUT_MS: '1500' };
    const killed = await child(['start', 'fan-late', INPUT], { ...env, KILL_AT: 'waiting' });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 1600));
    const done = await child(['recover', 'fan-late'], { ...env, SETTLE: '1' });
    expect(done.stored, done.stderr).toMatchObject({ status: 'completed', outputText: 'plain x|late a:!a|plain y|late b:!b' });
  }, 120_000);
});
