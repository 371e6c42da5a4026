import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteRunStore } from '../../../src/index.js';
import { runChild } from './childProcess.js';

/** Every place the crash fixture can SIGKILL itself: each node before and after its work, and inside the charging agent. */
const KILL_POINTS = [
  'receive:before',
  'receive:after',
  'validate:before',
  'validate:after',
  'charge:before',
  'charge:after-effect',
  'receipt:before',
  'notify:before',
  'notify:after',
  'audit:before',
  'audit:after',
  'close:before',
  'close:after',
];

/** A fixed pseudo-random sequence, so a failure can be replayed. */
function* seededPoints(count: number, seed: number): Generator<string> {
  let x = seed;
  for (const point of KILL_POINTS) yield point;
  for (let i = KILL_POINTS.length; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    yield KILL_POINTS[x % KILL_POINTS.length]!;
  }
}

describe('crash recovery', () => {
  it('recovers runs SIGKILLed at 21 points to the uninterrupted output, charging exactly once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-crash-'));
    const env = { SWITCHBOARD_DB: join(dir, 'runs.db'), SWITCHBOARD_DATABASE_URL: '' };
    const baselineCharges = join(dir, 'baseline.charges');
    const baseline = await runChild(['start', 'crash-chain', 'order-7', 'baseline'], { ...env, CHARGE_FILE: baselineCharges });
    expect(baseline.output).toMatchObject({ status: 'completed' });
    const expected = baseline.output as { outputText: string; path: string[] };
    expect(readFileSync(baselineCharges, 'utf8').trim().split('\n')).toHaveLength(1);

    let i = 0;
    for (const point of seededPoints(21, 7)) {
      const runId = `crash-${i++}-${point.replace(':', '-')}`;
      const charges = join(dir, `${runId}.charges`);
      const killed = await runChild(['start', 'crash-chain', 'order-7', runId], { ...env, CHARGE_FILE: charges, KILL_AT: point });
      expect(killed.signal, `${point}: ${killed.stderr}`).toBe('SIGKILL');

      const recovered = await runChild(['recover'], { ...env, CHARGE_FILE: charges });
      const outcome = (recovered.output as Array<{ runId: string; status: string; outputText: string; path: string[] }>).find((o) => o.runId === runId);
      expect(outcome, `${point}: ${JSON.stringify(recovered.output)} ${recovered.stderr}`).toMatchObject({ status: 'completed', outputText: expected.outputText });
      expect(outcome!.path.at(-1)).toBe('close');
      // The side effect ran exactly once across the crash, whether it had happened before it or not.
      const lines = existsSync(charges) ? readFileSync(charges, 'utf8').trim().split('\n') : [];
      expect(lines, point).toHaveLength(1);
    }

    const store = new SqliteRunStore({ file: env.SWITCHBOARD_DB });
    try {
      const runs = await store.listRuns({ limit: 100 });
      expect(runs.filter((r) => r.status !== 'completed')).toEqual([]);
      for (const run of runs) {
        const seqs = (await store.listEvents(run.runId)).map((e) => e.seq);
        expect(seqs, run.runId).toEqual(seqs.map((_, k) => k + 1));
      }
    } finally {
      await store.close();
    }
  // 43 processes one after another (each loads tsx and the graph): minutes on a busy machine, so the
  // bound only ends a hang.
  }, 900_000);
});
