import { describe, expect, it } from 'vitest';
import { StateGraph, humanNode, storedTransitions, type RunStore, type StoredEvent, type WorkflowRun } from '../../../src/index.js';
import { storeWith } from '../../support/storeWith.js';
import { StoreError } from '../../../src/persistence/StoreError.js';
import { postgresTarget, sqliteTarget, storesClosedAfterEach } from '../../persistence/storeTargets.js';

const openStore = storesClosedAfterEach();

const completedOf = (events: StoredEvent[]) => events.filter((e) => e.type === 'run.completed').map((e) => e.data.run as { status: string; error?: { code?: string } });

/**
 * a puts 9 MB into the state, b 9 MB more: together over the store's 16 MiB limit for one value.
 * Base64-like text (which events leaving the run lose, as `[binary]`) or words (which they keep).
 */
function growing(name: string, yieldBetween: boolean, words: boolean, ask = false): StateGraph {
  const fill = (c: string) => (words ? `${c}${c} `.repeat(3_000_000) : c.repeat(9_000_000));
  const graph = new StateGraph({ name })
    .addNode('a', async (ctx) => {
      ctx.put('first', fill('x'));
      if (yieldBetween) await new Promise((resolve) => setImmediate(resolve));
      return 'a';
    })
    .addNode('b', (ctx) => {
      ctx.put('second', fill('y'));
      return 'b';
    })
    .start('a')
    .addEdge('a', 'b');
  // With `ask`, b goes on to a human node: the write the store refuses is then the wait's.
  return ask ? graph.addNode('ask', humanNode({ reason: () => 'go on?' })).addEdge('b', 'ask') : graph;
}

/**
 * Checks that `run` failed `code` and that its stored row and log say so alike: seqs 1..n, the log
 * ending with one run.completed failed with `code`, and analytics ending it at `lastMove`.
 */
async function expectEndedFailed(store: RunStore, run: WorkflowRun, code: string, lastMove: string, what: string): Promise<string[]> {
  expect(run.status).toBe('failed');
  expect(run.error?.code).toBe(code);
  expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed', error: { code } });
  const events = await store.listEvents(run.runId);
  const types = events.map((e) => e.type);
  // Every event keeps its place; the log ends as the row does.
  expect(events.map((e) => e.seq), what).toEqual(events.map((_, k) => k + 1));
  expect(types.at(-1), `${what}: ${types.join(' ')}`).toBe('run.completed');
  expect(completedOf(events)).toEqual([expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code }) })]);
  // Read back as analytics read it: the run ended failed, it is not still going.
  const moves = (await storedTransitions(store)).filter((r) => r.runId === run.runId).map((r) => `${r.from}>${r.to}`);
  expect(moves.at(-1)).toBe(lastMove);
  return types;
}

describe('a stored run whose state grows past the store\'s limit', () => {
  for (const [name, target] of [['SQLite', sqliteTarget], ['PostgreSQL', postgresTarget]] as const) {
    it(`ends its event log failed with value_too_large, as its row does, on ${name}`, async () => {
      const store = openStore(target);
      for (const [yieldBetween, words] of [[false, false], [true, false], [false, true], [true, true]] as const) {
        const run = await growing(`too-large-${yieldBetween ? 'yielding' : 'one-turn'}-${words ? 'words' : 'blob'}`, yieldBetween, words).run('go', { store });
        const types = await expectEndedFailed(store, run, 'value_too_large', 'b>__end__:failed', `yielding: ${yieldBetween}`);
        expect(types.filter((t) => t === 'node.started')).toHaveLength(2);
      }
    });

    it(`ends its event log failed when the write that outgrows the store is its wait, on ${name}`, async () => {
      const store = openStore(target);
      for (const yieldBetween of [false, true]) {
        // The wait's snapshot is the write the store refuses; the leg's run.completed comes after it.
        const run = await growing(`too-large-wait-${yieldBetween ? 'yielding' : 'one-turn'}`, yieldBetween, false, true).run('go', { store });
        await expectEndedFailed(store, run, 'value_too_large', 'ask>__end__:failed', `yielding: ${yieldBetween}`);
      }
    });
  }
});

describe('a stored run whose last write finds the store gone away for a moment', () => {
  it('ends failed with store_unavailable in its row and in its last event alike', async () => {
    const store = openStore(sqliteTarget);
    let failed = 0;
    // The write carrying run.completed fails once as a store gone away does; the store is back at once.
    const flaky = storeWith(store, {
      updateRun: (original) => async (...args: unknown[]) => {
        const events = (args[3] ?? []) as StoredEvent[];
        if (failed === 0 && events.some((e) => e.type === 'run.completed')) {
          failed += 1;
          throw new StoreError('SQLite at runs.db: disk I/O error', { code: 'store_unavailable', retryable: true });
        }
        return original(...args);
      },
    });
    const graph = new StateGraph({ name: 'flaky-last-write' }).addNode('a', () => 'a').start('a');
    const run = await graph.run('go', { store: flaky });
    expect(failed).toBe(1);
    await expectEndedFailed(store, run, 'store_unavailable', 'a>__end__:failed', 'a store gone away for a moment');
  });
});
