import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runChild } from '../graph/durable/childProcess.js';
import { postgresTarget, type StoreTarget } from '../persistence/storeTargets.js';

/**
 * The kill trial of forkCrash.test.ts on PostgreSQL: a fork at step 250 of the 300-step counter
 * loop is SIGKILLed at its first replayed step, in the middle of its replay, and at its first own
 * step, then recovered by a new process. Each kill gets a fresh schema (a parent of its own, and a
 * recovery that sees no other run). Recovered, the fork ends as the uninterrupted fork does, and
 * charges once, at its own step 300: no replayed step executes.
 */
type Outcome = { runId: string; status: string; outputText: string | null; path: string[]; outcome?: string };

const KILLS = ['node.started:2', 'node.started:120', 'node.started:251'];

/** A fresh schema with the 300-step parent in it, and the charges of a run there (CHARGE_FILE, a line per charge). */
async function withParent(): Promise<{ target: StoreTarget; env: Record<string, string>; charges(runId: string): string[]; parent: Outcome }> {
  const target = postgresTarget();
  const file = join(mkdtempSync(join(tmpdir(), 'sb-pg-forkcrash-')), 'charges');
  const env = { ...target.env, CHARGE_FILE: file };
  const charges = (runId: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter((line) => line.startsWith(`${runId}:`)) : []);
  const parent = await runChild(['start', 'counter', 'go', 'parent'], env);
  expect(parent.output, parent.stderr).toMatchObject({ status: 'max-steps' });
  expect(charges('parent')).toHaveLength(6);
  return { target, env, charges, parent: parent.output as Outcome };
}

describe('a fork killed while it replays its parent, on PostgreSQL', () => {
  it(`recovers to the uninterrupted fork without executing a replayed step, killed at ${KILLS.join(', ')}`, async () => {
    const first = await withParent();
    let clean: Outcome;
    try {
      const forked = await runChild(['fork', 'parent', '250', 'clean'], first.env);
      clean = forked.output as Outcome;
      expect(clean, forked.stderr).toMatchObject({ status: 'max-steps', outputText: first.parent.outputText });
      expect(first.charges('clean')).toEqual(['clean:300:charge']);
    } finally {
      await first.target.close();
    }

    for (const kill of KILLS) {
      const { target, env, charges } = await withParent();
      try {
        const forkId = `fork-${kill.replace(/[.:]/g, '-')}`;
        const killed = await runChild(['fork', 'parent', '250', forkId], { ...env, KILL_AT_FORK: kill });
        expect(killed.signal, `${kill}: ${JSON.stringify(killed.output)} ${killed.stderr}`).toBe('SIGKILL');
        expect((await target.store.getRun(forkId))?.status, kill).toBe('running');
        const recovered = await runChild(['recover'], env);
        expect(recovered.output, `${kill}: ${recovered.stderr}`).toHaveLength(1);
        const outcome = (recovered.output as Outcome[])[0];
        expect(outcome, kill).toMatchObject({ runId: forkId, outcome: 'recovered', status: 'max-steps', outputText: clean.outputText });
        expect(outcome!.path, kill).toEqual(clean.path);
        expect(charges(forkId), kill).toEqual([`${forkId}:300:charge`]);
        // The stored fork: finished, its events numbered without a gap or a repeat across the two processes.
        expect(await target.store.getRun(forkId), kill).toMatchObject({ status: 'max-steps', outputText: clean.outputText });
        const seqs = (await target.store.listEvents(forkId, { limit: 100_000 })).map((e) => e.seq);
        expect(seqs, kill).toEqual(seqs.map((_, k) => k + 1));
      } finally {
        await target.close();
      }
    }
  }, 120_000);
});
