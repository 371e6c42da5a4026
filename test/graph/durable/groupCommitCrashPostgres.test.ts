import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { postgresTarget } from '../../persistence/storeTargets.js';
import { runChild } from './childProcess.js';

/**
 * The group-commit kill trials of groupCommitCrash.test.ts on PostgreSQL, which gets the same
 * write shape (step records committed in groups, snapshots at waits and at the end): a process
 * SIGKILLed between two commits is recovered by another to the uninterrupted result.
 */
const KILL_STEPS = [1, 128, 129, 257, 300];

describe('crash recovery between group commits on PostgreSQL', () => {
  it(`recovers a 300-step loop killed at ${KILL_STEPS.length} steps to the uninterrupted result, charging exactly once`, async () => {
    const target = postgresTarget();
    const dir = mkdtempSync(join(tmpdir(), 'sb-pg-group-'));
    const charges = (name: string) => {
      const file = join(dir, `${name}.charges`);
      return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
    };
    try {
      const baseline = await runChild(['start', 'counter', 'go', 'baseline'], { ...target.env, CHARGE_FILE: join(dir, 'baseline.charges') });
      expect(baseline.output, baseline.stderr).toMatchObject({ status: 'max-steps', outputText: 'n=300' });
      const expected = baseline.output as { outputText: string; path: string[] };
      expect(charges('baseline')).toHaveLength(6);

      for (const step of KILL_STEPS) {
        const runId = `killed-at-${step}`;
        const file = join(dir, `${runId}.charges`);
        const killed = await runChild(['start', 'counter', 'go', runId], { ...target.env, CHARGE_FILE: file, KILL_AT: `count:${step}` });
        expect(killed.signal, `${step}: ${killed.stderr}`).toBe('SIGKILL');
        const recovered = await runChild(['recover'], { ...target.env, CHARGE_FILE: file });
        const outcome = (recovered.output as Array<{ runId: string; status: string; outputText: string; path: string[] }>).find((o) => o.runId === runId);
        expect(outcome, `${step}: ${JSON.stringify(recovered.output)} ${recovered.stderr}`).toMatchObject({ status: 'max-steps', outputText: expected.outputText });
        expect(outcome!.path, `${step}`).toEqual(expected.path);
        expect(charges(runId), `${step}`).toEqual([...new Set(charges(runId))]);
        expect(charges(runId), `${step}`).toHaveLength(6);
      }

      for (const run of await target.store.listRuns({ limit: 100 })) {
        expect(run.status, run.runId).toBe('max-steps');
        expect((run.snapshot as { context: { state: { n: number } } }).context.state.n, run.runId).toBe(300);
        const seqs = (await target.store.listEvents(run.runId, { limit: 100_000 })).map((e) => e.seq);
        expect(seqs, run.runId).toEqual(seqs.map((_, k) => k + 1));
      }
    } finally {
      await target.close();
    }
  }, 120_000);
});
