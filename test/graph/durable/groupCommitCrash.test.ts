import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteRunStore } from '../../../src/index.js';
import { runChild } from './childProcess.js';

/**
 * Steps are committed in groups (every 128 step records, or at the end of an event-loop turn): a
 * process killed between two commits loses the steps after the last one. Recovery must run them
 * again and end exactly as the uninterrupted run, charging every 50th step once.
 */
const KILL_STEPS = [1, 2, 64, 65, 100, 127, 128, 129, 130, 150, 200, 255, 256, 257, 299, 300];

describe('crash recovery between group commits', () => {
  it(`recovers a 300-step loop killed at ${KILL_STEPS.length} steps to the uninterrupted result, charging exactly once`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-group-'));
    const env = { SWITCHBOARD_DB: join(dir, 'runs.db'), SWITCHBOARD_DATABASE_URL: '' };
    const charges = (name: string) => {
      const file = join(dir, `${name}.charges`);
      return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
    };
    const baseline = await runChild(['start', 'counter', 'go', 'baseline'], { ...env, CHARGE_FILE: join(dir, 'baseline.charges') });
    expect(baseline.output).toMatchObject({ status: 'max-steps', outputText: 'n=300' });
    const expected = baseline.output as { outputText: string; path: string[] };
    expect(expected.path).toHaveLength(300);
    expect(charges('baseline')).toHaveLength(6);

    for (const step of KILL_STEPS) {
      const runId = `killed-at-${step}`;
      const file = join(dir, `${runId}.charges`);
      const killed = await runChild(['start', 'counter', 'go', runId], { ...env, CHARGE_FILE: file, KILL_AT: `count:${step}` });
      expect(killed.signal, `${step}: ${killed.stderr}`).toBe('SIGKILL');
      const recovered = await runChild(['recover'], { ...env, CHARGE_FILE: file });
      const outcome = (recovered.output as Array<{ runId: string; status: string; outputText: string; path: string[] }>).find((o) => o.runId === runId);
      expect(outcome, `${step}: ${JSON.stringify(recovered.output)} ${recovered.stderr}`).toMatchObject({ status: 'max-steps', outputText: expected.outputText });
      expect(outcome!.path, `${step}`).toEqual(expected.path);
      // Every charge is carried out once, whether its step was committed before the kill or run again.
      expect(charges(runId), `${step}`).toEqual([...new Set(charges(runId))]);
      expect(charges(runId), `${step}`).toHaveLength(6);
    }

    const store = new SqliteRunStore({ file: env.SWITCHBOARD_DB });
    try {
      for (const run of await store.listRuns({ limit: 100 })) {
        expect(run.status, run.runId).toBe('max-steps');
        expect((run.snapshot as { context: { state: { n: number } } }).context.state.n, run.runId).toBe(300);
        const seqs = (await store.listEvents(run.runId)).map((e) => e.seq);
        expect(seqs, run.runId).toEqual(seqs.map((_, k) => k + 1));
      }
    } finally {
      await store.close();
    }
  }, 600_000);
});
