import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointManager, RunManager, checkpointingStepRunner, forkRun, resumeRun, retryRun, type RunStore } from '../../src/index.js';
import { counterGraph } from '../fixtures/durableGraphs.js';
import { runChild } from '../graph/durable/childProcess.js';
import { postgresTarget, sqliteTarget, useStoreTarget, type StoreTarget } from '../persistence/storeTargets.js';

/**
 * A fork that cannot go on because its parent lost the steps it forked at: the fork's process was
 * SIGKILLed while it replayed them (or the fork failed after them), then the parent was deleted, or
 * retried and failed again short of them. Recovering, resuming or retrying the fork is refused with
 * `fork_unsupported` naming both runs; none of the parent's steps executes (each execution of a
 * counter node is a line in EXEC_LOG), and what is stored of the fork stays as it was. The one
 * change is recovery's own, made to any run whose process died: the orphaned fork is marked
 * `interrupted` (snapshot and events untouched), and stays so, for an operator to cancel.
 */
const env = { exec: '', charges: '' };
const saved = { EXEC_LOG: process.env.EXEC_LOG, CHARGE_FILE: process.env.CHARGE_FILE, FAIL_AT: process.env.FAIL_AT };
beforeEach(() => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-forkgone-'));
  env.exec = join(dir, 'exec.log');
  env.charges = join(dir, 'charges');
  writeFileSync(env.exec, '');
  process.env.EXEC_LOG = env.exec;
  process.env.CHARGE_FILE = env.charges;
});
afterEach(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

/** The counter values of the nodes executed (here or in a child process) since the last call. */
function executedSince(): number[] {
  const lines = readFileSync(env.exec, 'utf8').split('\n').filter(Boolean).map(Number);
  writeFileSync(env.exec, '');
  return lines;
}

/** Removes a run's rows, as an operator pruning old runs does: the SQL stores have no delete of their own. */
async function deleteStoredRun(target: StoreTarget, runId: string): Promise<void> {
  const tables = ['runs', 'events', 'steps', 'step_runs', 'journal'];
  if (target.env.SWITCHBOARD_DB) {
    const db = new Database(target.env.SWITCHBOARD_DB);
    for (const table of tables) db.prepare(`DELETE FROM ${table} WHERE run_id = ?`).run(runId);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: target.env.SWITCHBOARD_DATABASE_URL, options: `-c search_path=${target.env.SWITCHBOARD_DATABASE_SCHEMA}` });
  await client.connect();
  try {
    for (const table of tables) await client.query(`DELETE FROM ${table} WHERE run_id = $1`, [runId]);
  } finally {
    await client.end();
  }
}

/** Everything stored of a run: its row, its events, its step records. */
async function storedOf(store: RunStore, runId: string) {
  return { record: await store.getRun(runId), events: await store.listEvents(runId), steps: await new CheckpointManager(store).getRunState(runId) };
}

const refusal = (fork: string) => `run ${fork} is a fork of run parent at step 250, but that run no longer has its first 250 steps`;

const targets: [string, () => StoreTarget][] = [
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
];

describe.each(targets)('a fork whose parent lost the forked steps, on %s', (_name, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it.each(['deleted', 'retried short of them'] as const)('parent %s: recovery, resume and retry are refused, execute nothing and leave the fork as it was', async (gone) => {
    const { store } = target();
    const runs = new RunManager({ store, graphs: [counterGraph()] });
    // The parent: 300 steps of the a ⇄ b loop, or 279 before it fails (to be retried).
    if (gone === 'retried short of them') process.env.FAIL_AT = 'count:280';
    await runs.start('counter', 'go', { runId: 'parent' }).catch(() => undefined);
    expect((await store.getRun('parent'))?.status).toBe(gone === 'deleted' ? 'max-steps' : 'failed');
    expect(executedSince()).toHaveLength(gone === 'deleted' ? 300 : 280);

    // A fork at 250 killed at its step 120, among the steps it replays; and one that fails at its own step 260.
    const killed = await runChild(['fork', 'parent', '250', 'fork-killed'], { ...target().env, EXEC_LOG: env.exec, CHARGE_FILE: env.charges, FAIL_AT: '', KILL_AT_FORK: 'node.started:120' });
    expect(killed.signal, `${JSON.stringify(killed.output)} ${killed.stderr}`).toBe('SIGKILL');
    expect((await store.getRun('fork-killed'))?.status).toBe('running');
    process.env.FAIL_AT = 'count:260';
    await forkRun(counterGraph(), 'parent', { at: 250 }, { store, runId: 'fork-failed', stepRunner: checkpointingStepRunner(store) }).catch(() => undefined);
    expect((await store.getRun('fork-failed'))?.status).toBe('failed');
    expect((await new CheckpointManager(store).getRunState('fork-failed')).counts.FAILED).toBe(1);
    // Only the failed fork's own steps executed: 251…260.
    expect(executedSince()).toEqual(Array.from({ length: 10 }, (_, k) => 251 + k));

    if (gone === 'deleted') {
      await deleteStoredRun(target(), 'parent');
      expect(await store.getRun('parent')).toBeNull();
    } else {
      // Retried, the parent fails again at its 30th step: its history now ends at step 29.
      process.env.FAIL_AT = 'count:30';
      await retryRun(counterGraph(), 'parent', { store }).catch(() => undefined);
      expect((await store.getRun('parent'))?.status).toBe('failed');
      expect(executedSince()).toEqual(Array.from({ length: 30 }, (_, k) => 1 + k));
    }
    delete process.env.FAIL_AT;
    const killedBefore = await storedOf(store, 'fork-killed');
    const failedBefore = await storedOf(store, 'fork-failed');

    // Recovery marks the orphaned fork interrupted, as any run whose process died, and skips it.
    const outcome = (await runs.recover()).find((o) => o.runId === 'fork-killed');
    expect(outcome).toMatchObject({ outcome: 'skipped', reason: expect.stringContaining(refusal('fork-killed')) });
    const interrupted = await storedOf(store, 'fork-killed');
    expect(interrupted.record).toMatchObject({ status: 'interrupted', owner: null, leaseExpiresAt: null, lastSeq: killedBefore.record!.lastSeq });
    expect(interrupted.record!.snapshot).toEqual(killedBefore.record!.snapshot);
    expect(interrupted.events).toEqual(killedBefore.events);

    // Resumed, recovered again: refused, nothing written.
    await expect(resumeRun(counterGraph(), 'fork-killed', undefined, { store })).rejects.toMatchObject({ code: 'fork_unsupported', message: expect.stringContaining(refusal('fork-killed')) });
    expect((await runs.recover()).find((o) => o.runId === 'fork-killed')).toMatchObject({ outcome: 'skipped' });
    expect(await storedOf(store, 'fork-killed')).toEqual(interrupted);

    // Retried: refused before its failed step records are reset.
    await expect(retryRun(counterGraph(), 'fork-failed', { store })).rejects.toMatchObject({ code: 'fork_unsupported', message: expect.stringContaining(refusal('fork-failed')) });
    expect(await storedOf(store, 'fork-failed')).toEqual(failedBefore);
    expect(executedSince()).toEqual([]);

    // What the refusal advises works: the fork can be cancelled.
    expect(await runs.cancel('fork-killed')).toMatchObject({ status: 'cancelled' });
  }, 60_000);
});
