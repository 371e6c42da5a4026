import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { postgresTarget, sqliteTarget } from '../../persistence/storeTargets.js';
import { runChild } from './childProcess.js';

type Outcome = { runId: string; status: string; outputText: string | null; path: string[]; waiting?: unknown };

/**
 * tally-wait (60 unyielding steps, a wait, 60 more; a charge every 30th step) killed right after
 * the wait was reported, and in the groups right after the reply: resumed or recovered by another
 * process, it ends as the uninterrupted run, each charge carried out once.
 */
describe('crash recovery around a wait', () => {
  for (const [name, makeTarget] of [['SQLite', sqliteTarget], ['PostgreSQL', postgresTarget]] as const) {
    it(`resumes a run killed right after its wait was reported, and recovers one killed after the reply, on ${name}`, async () => {
      const target = makeTarget();
      const dir = mkdtempSync(join(tmpdir(), 'sb-wait-crash-'));
      const env = (runId: string) => ({ ...target.env, CHARGE_FILE: join(dir, `${runId}.charges`) });
      const charges = (runId: string) => {
        const file = join(dir, `${runId}.charges`);
        return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
      };
      const same = (outcome: Outcome | undefined) => ({ status: outcome?.status, outputText: outcome?.outputText, path: outcome?.path });
      try {
        const waited = await runChild(['start', 'tally-wait', 'go', 'baseline'], env('baseline'));
        expect(waited.output, waited.stderr).toMatchObject({ status: 'waiting', waiting: { nodeId: 'h', reason: 'approve at 60' } });
        const baseline = (await runChild(['resume', 'baseline', 'yes'], env('baseline'))).output as Outcome;
        expect(baseline).toMatchObject({ status: 'completed', outputText: 'done n=120 reply=yes after n=120' });
        expect(charges('baseline')).toHaveLength(4);

        // Killed as soon as it reported the wait: the wait was stored before, and another process resumes it.
        const reported = await runChild(['start', 'tally-wait', 'go', 'reported'], { ...env('reported'), KILL_AFTER_REPORT: '1' });
        expect(reported.signal).toBe('SIGKILL');
        expect(reported.output).toMatchObject({ status: 'waiting' });
        expect(same((await runChild(['resume', 'reported', 'yes'], env('reported'))).output as Outcome)).toEqual(same(baseline));

        // Killed in the resumed leg, at its first step and at its last group: recovered by another process.
        for (const step of [61, 119]) {
          const runId = `after-reply-${step}`;
          expect((await runChild(['start', 'tally-wait', 'go', runId], env(runId))).output).toMatchObject({ status: 'waiting' });
          const killed = await runChild(['resume', runId, 'yes'], { ...env(runId), KILL_AT: `tally:${step}` });
          expect(killed.signal, killed.stderr).toBe('SIGKILL');
          const recovered = await runChild(['recover'], env(runId));
          expect(same((recovered.output as Outcome[]).find((o) => o.runId === runId)), recovered.stderr).toEqual(same(baseline));
        }

        for (const runId of ['reported', 'after-reply-61', 'after-reply-119']) {
          expect(charges(runId), runId).toEqual([...new Set(charges(runId))]);
          expect(charges(runId), runId).toHaveLength(4);
          const seqs = (await target.store.listEvents(runId, { limit: 100_000 })).map((e) => e.seq);
          expect(seqs, runId).toEqual(seqs.map((_, k) => k + 1));
        }
      } finally {
        await target.close();
      }
    }, 120_000);
  }
});
