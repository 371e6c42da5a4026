import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runChild } from '../graph/durable/childProcess.js';

/**
 * Forks killed with SIGKILL while they replay their parent's steps (where no node code runs, so
 * only the fork's own events can mark the moment), then recovered in a new process: each must end
 * as the same fork uninterrupted does, and no replayed step may execute again (each charge is a
 * line in CHARGE_FILE, keyed by run and step).
 */
type Outcome = { runId: string; status: string; outputText: string | null; path: string[]; outcome?: string; error?: unknown };

const chargesOf = (file: string, runId: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter((line) => line.startsWith(`${runId}:`)) : []);

async function forkKilledThenRecovered(env: Record<string, string>, parent: string, at: number, forkId: string, kill: string): Promise<Outcome> {
  const killed = await runChild(['fork', parent, String(at), forkId], { ...env, KILL_AT_FORK: kill });
  expect(killed.signal, `${kill}: ${JSON.stringify(killed.output)} ${killed.stderr}`).toBe('SIGKILL');
  const recovered = await runChild(['recover'], env);
  const outcome = (recovered.output as Outcome[]).find((o) => o.runId === forkId);
  expect(outcome, `${kill}: ${JSON.stringify(recovered.output)} ${recovered.stderr}`).toBeDefined();
  return outcome!;
}

describe('a fork killed while it replays its parent', () => {
  it('recovers to the uninterrupted fork without executing a replayed step (a ⇄ b loop, charges every 50th step)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-forkcrash-'));
    const env = { SWITCHBOARD_DB: join(dir, 'runs.db'), SWITCHBOARD_DATABASE_URL: '', CHARGE_FILE: join(dir, 'charges') };
    // The loop ends at its step fuse: max-steps, after 300 steps.
    const parent = await runChild(['start', 'counter', 'go', 'parent'], env);
    expect(parent.output).toMatchObject({ status: 'max-steps' });
    expect(chargesOf(env.CHARGE_FILE, 'parent')).toHaveLength(6);
    const clean = await runChild(['fork', 'parent', '250', 'clean'], env);
    expect(clean.output).toMatchObject({ status: 'max-steps', outputText: (parent.output as Outcome).outputText });
    // Steps 1…250 are the parent's, replayed; of the fork's own steps only the 300th charges.
    expect(chargesOf(env.CHARGE_FILE, 'clean')).toEqual(['clean:300:charge']);

    for (const kill of ['node.started:2', 'node.started:120', 'node.started:250', 'node.started:251']) {
      const forkId = `fork-${kill.replace(/[.:]/g, '-')}`;
      const outcome = await forkKilledThenRecovered(env, 'parent', 250, forkId, kill);
      expect(outcome, kill).toMatchObject({ outcome: 'recovered', status: 'max-steps', outputText: (clean.output as Outcome).outputText });
      expect(outcome.path, kill).toEqual((clean.output as Outcome).path);
      expect(chargesOf(env.CHARGE_FILE, forkId), kill).toEqual([`${forkId}:300:charge`]);
    }

    // A fork with an edited state, killed before the step it goes on from: recovered, it makes the edit too.
    const edited = { ...env, FORK_STATE: JSON.stringify({ n: 1010 }) };
    const cleanEdit = await runChild(['fork', 'parent', '250', 'clean-edit'], edited);
    expect(cleanEdit.output).toMatchObject({ status: 'max-steps', outputText: 'n=1060' });
    expect(chargesOf(env.CHARGE_FILE, 'clean-edit')).toEqual(['clean-edit:290:charge']);
    const outcome = await forkKilledThenRecovered(edited, 'parent', 250, 'edit-killed', 'node.started:120');
    expect(outcome).toMatchObject({ outcome: 'recovered', status: 'max-steps', outputText: 'n=1060' });
    expect(chargesOf(env.CHARGE_FILE, 'edit-killed')).toEqual(['edit-killed:290:charge']);
  }, 600_000);

  it('recovers a fork killed around a replayed human wait: it takes the reply the parent got, and goes on by itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-forkcrash-'));
    const env = { SWITCHBOARD_DB: join(dir, 'runs.db'), SWITCHBOARD_DATABASE_URL: '', CHARGE_FILE: join(dir, 'charges') };
    const waiting = await runChild(['start', 'tally-wait', 'go', 'parent'], env);
    expect(waiting.output).toMatchObject({ status: 'waiting' });
    const parent = await runChild(['resume', 'parent', 'approved by Ana'], env);
    expect(parent.output).toMatchObject({ status: 'completed' });
    const clean = await runChild(['fork', 'parent', '100', 'clean'], env);
    expect(clean.output).toMatchObject({ status: 'completed', outputText: (parent.output as Outcome).outputText });
    expect(chargesOf(env.CHARGE_FILE, 'clean')).toEqual(['clean:121:charge']);

    for (const kill of ['node.started:30', 'run.waiting:61', 'node.started:62', 'node.started:101']) {
      const forkId = `fork-${kill.replace(/[.:]/g, '-')}`;
      const outcome = await forkKilledThenRecovered(env, 'parent', 100, forkId, kill);
      expect(outcome, kill).toMatchObject({ outcome: 'recovered', status: 'completed', outputText: (clean.output as Outcome).outputText });
      expect(chargesOf(env.CHARGE_FILE, forkId), kill).toEqual([`${forkId}:121:charge`]);
    }
  }, 600_000);
});
