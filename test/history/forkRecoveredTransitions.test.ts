import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runChild } from '../graph/durable/childProcess.js';
import { counterGraph, tallyWaitGraph } from '../fixtures/durableGraphs.js';
import { RunManager, SqliteRunStore, StateGraph, TransitionRecorder, storedTransitions, type TransitionRecord } from '../../src/index.js';

/** What a transition says about the run's path, without its run id and times. */
const shape = (records: readonly TransitionRecord[], runId: string) =>
  records.filter((r) => r.runId === runId).map((r) => `${r.from}>${r.to} ${r.nodeType} ${r.label} tokens=${r.tokens}`);

const charges = process.env.CHARGE_FILE;
afterEach(() => {
  if (charges === undefined) delete process.env.CHARGE_FILE;
  else process.env.CHARGE_FILE = charges;
});

/**
 * Runs `parent` (child processes), forks it at `at` uninterrupted (`clean`) and once per kill point
 * (SIGKILLed there), then recovers the killed forks in this process with a live TransitionRecorder.
 * Checks each recovered fork's stored transitions equal the clean fork's, and its live ones too
 * (all of them when killed among the replayed steps; the tail the leg made when killed past them,
 * `ownKill`). Returns the clean fork's records for the caller's own checks.
 */
async function recoveredForks(graph: () => StateGraph, parent: string[][], at: number, kills: string[], ownKill: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-forktransitions-'));
  const env = { SWITCHBOARD_DB: join(dir, 'runs.db'), SWITCHBOARD_DATABASE_URL: '', CHARGE_FILE: join(dir, 'charges') };
  for (const args of parent) expect((await runChild(args, env)).output).not.toHaveProperty('error');
  expect((await runChild(['fork', 'parent', String(at), 'clean'], env)).output).not.toHaveProperty('error');
  const forkIds = kills.map((kill) => `fork-${kill.replace(/[.:]/g, '-')}`);
  for (const [i, kill] of kills.entries()) {
    const killed = await runChild(['fork', 'parent', String(at), forkIds[i]!], { ...env, KILL_AT_FORK: kill });
    expect(killed.signal, `${kill}: ${JSON.stringify(killed.output)} ${killed.stderr}`).toBe('SIGKILL');
  }
  process.env.CHARGE_FILE = env.CHARGE_FILE;
  const store = new SqliteRunStore({ file: env.SWITCHBOARD_DB });
  try {
    const live = new TransitionRecorder();
    const outcomes = await new RunManager({ store, graphs: [graph()] }).recover({ recorders: [live] });
    expect(outcomes.map((o) => o.outcome)).toEqual(forkIds.map(() => 'recovered'));
    const stored = await storedTransitions(store);
    const clean = shape(stored, 'clean');
    for (const [i, kill] of kills.entries()) {
      expect(shape(stored, forkIds[i]!), `stored, ${kill}`).toEqual(clean);
      const recovered = shape(live.records, forkIds[i]!);
      // A leg that resumed among the replayed steps records none of them.
      if (kill !== ownKill) expect(recovered, `live, ${kill}`).toEqual(clean);
      else expect(clean.slice(-recovered.length), `live, ${kill}`).toEqual(recovered);
    }
    return clean;
  } finally {
    await store.close();
  }
}

describe('the transitions of a fork recovered while it replays its parent', () => {
  it('are the fork’s own, as the uninterrupted fork has them: live on the recovered leg and in the store', async () => {
    // Killed at replayed steps (2, 120, the last one, 250) and at the fork's first own step (251).
    const kills = ['node.started:2', 'node.started:120', 'node.started:250', 'node.started:251'];
    const clean = await recoveredForks(counterGraph, [['start', 'counter', 'go', 'parent']], 250, kills, 'node.started:251');
    // Steps 1…250 are the parent's: the fork's records start with the edge that leaves step 250
    // (its own, chosen by its state), then its 50 own steps and its end.
    expect(clean).toHaveLength(51);
    expect(clean[0]).toBe('b>a node transition[0] tokens=0');
    expect(clean.at(-1)).toBe('b>__end__:max-steps node max-steps tokens=0');
  }, 300_000);

  it('leave out a replayed human wait and the reply the parent got, also when the fork was killed there', async () => {
    // Before the wait (step 30), at it (61: h waits), just after the reply (62), and past the replay (101).
    const kills = ['node.started:30', 'run.waiting:61', 'node.started:62', 'node.started:101'];
    const parent = [
      ['start', 'tally-wait', 'go', 'parent'],
      ['resume', 'parent', 'approved by Ana'],
    ];
    const clean = await recoveredForks(tallyWaitGraph, parent, 100, kills, 'node.started:101');
    // Steps 1…100 (with h's wait at 61) are the parent's: the fork's records are the edge leaving
    // step 100, one per step 101…121 (a to a, then a to z) and z's end.
    expect(clean).toHaveLength(23);
    expect(clean.some((line) => line.includes('human') || line.includes('waiting'))).toBe(false);
    expect(clean.at(-1)).toBe('z>__end__:completed node end tokens=0');
  }, 300_000);
});
