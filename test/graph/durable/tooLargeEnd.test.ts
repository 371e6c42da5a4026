import { describe, expect, it } from 'vitest';
import { StateGraph, humanNode, storedTransitions, type StoredEvent } from '../../../src/index.js';
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

describe('a stored run whose state grows past the store\'s limit', () => {
  for (const [name, target] of [['SQLite', sqliteTarget], ['PostgreSQL', postgresTarget]] as const) {
    it(`ends its event log failed with value_too_large, as its row does, on ${name}`, async () => {
      const store = openStore(target);
      for (const [yieldBetween, words] of [[false, false], [true, false], [false, true], [true, true]] as const) {
        const run = await growing(`too-large-${yieldBetween ? 'yielding' : 'one-turn'}-${words ? 'words' : 'blob'}`, yieldBetween, words).run('go', { store });
        expect(run.status).toBe('failed');
        expect(run.error?.code).toBe('value_too_large');
        expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed', error: { code: 'value_too_large' } });
        const events = await store.listEvents(run.runId);
        const types = events.map((e) => e.type);
        // Every event keeps its place; the log ends as the row does.
        expect(events.map((e) => e.seq), `yielding: ${yieldBetween}`).toEqual(events.map((_, k) => k + 1));
        expect(types.at(-1), `yielding: ${yieldBetween}: ${types.join(' ')}`).toBe('run.completed');
        expect(completedOf(events)).toEqual([expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'value_too_large' }) })]);
        expect(types.filter((t) => t === 'node.started')).toHaveLength(2);
        // Read back as analytics read it: the run ended failed, it is not still going at b.
        const moves = (await storedTransitions(store)).filter((r) => r.runId === run.runId).map((r) => `${r.from}>${r.to}`);
        expect(moves.at(-1)).toBe('b>__end__:failed');
      }
    });

    it(`ends its event log failed when the write that outgrows the store is its wait, on ${name}`, async () => {
      const store = openStore(target);
      for (const yieldBetween of [false, true]) {
        // The wait's snapshot is the write the store refuses; the leg's run.completed comes after it.
        const run = await growing(`too-large-wait-${yieldBetween ? 'yielding' : 'one-turn'}`, yieldBetween, false, true).run('go', { store });
        expect(run.status).toBe('failed');
        expect(run.error?.code).toBe('value_too_large');
        expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed', error: { code: 'value_too_large' } });
        const events = await store.listEvents(run.runId);
        const types = events.map((e) => e.type);
        expect(events.map((e) => e.seq), `yielding: ${yieldBetween}`).toEqual(events.map((_, k) => k + 1));
        expect(types.at(-1), `yielding: ${yieldBetween}: ${types.join(' ')}`).toBe('run.completed');
        expect(completedOf(events)).toEqual([expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'value_too_large' }) })]);
        const moves = (await storedTransitions(store)).filter((r) => r.runId === run.runId).map((r) => `${r.from}>${r.to}`);
        expect(moves.at(-1)).toBe('ask>__end__:failed');
      }
    });
  }
});
