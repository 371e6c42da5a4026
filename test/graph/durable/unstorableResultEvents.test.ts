import { describe, expect, it } from 'vitest';
import { StateGraph, type StoredEvent } from '../../../src/index.js';
import { postgresTarget, sqliteTarget, storesClosedAfterEach } from '../../persistence/storeTargets.js';

const openStore = storesClosedAfterEach();

/** Values a node can return in its raw response that a stored snapshot cannot hold. */
const UNSTORABLE: Array<[string, () => unknown, RegExp]> = [
  ['a function', () => ({ retry: () => 1 }), /rawResponse\.retry holds a function/],
  ['a cycle', () => {
    const order: Record<string, unknown> = { id: 'SO1' };
    order.self = order;
    return order;
  }, /rawResponse\.self refers back to itself/],
  ['a BigInt', () => ({ tokens: 12n }), /rawResponse\.tokens holds a bigint/],
];

/**
 * a ⇄ b for up to 40 steps counting in `n`, without yielding (so the steps go into one group
 * commit); the step that makes `n` reach `badAt` returns `bad()` as its raw response.
 */
function loop(badAt: number, bad: () => unknown): StateGraph {
  const count = (ctx: { get<T>(key: string): T | undefined; put(key: string, value: unknown): void }) => {
    const n = (ctx.get<number>('n') ?? 0) + 1;
    ctx.put('n', n);
    return n === badAt ? { outputText: `n=${n}`, rawResponse: bad() } : `n=${n}`;
  };
  return new StateGraph({ name: 'loop', maxSteps: 40 }).addNode('a', count).addNode('b', count).start('a').addEdge('a', 'b').addEdge('b', 'a');
}

const completedOf = (events: StoredEvent[]) => events.filter((e) => e.type === 'run.completed').map((e) => e.data.run as { status: string; error?: { code?: string } });

describe('a stored run stopped by a node result it cannot store', () => {
  for (const [name, target] of [['SQLite', sqliteTarget], ['PostgreSQL', postgresTarget]] as const) {
    it(`ends its event log as its row ends, failed with the error, on ${name} (not cancelled)`, async () => {
      const store = openStore(target);
      for (const [what, bad, message] of UNSTORABLE) {
        for (const badAt of [1, 10]) {
          const run = await loop(badAt, bad).run('go', { store });
          expect(run.status, `${what} at ${badAt}`).toBe('failed');
          expect(run.error?.code).toBe('not_json');
          expect(run.error?.message).toMatch(message);
          expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed', error: { code: 'not_json' } });
          const events = await store.listEvents(run.runId);
          // The node that ran next was stopped; the run's last event says what its row says.
          expect(completedOf(events), `${what} at ${badAt}`).toEqual([expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'not_json' }) })]);
          expect(events.at(-1)?.type).toBe('run.completed');
          expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k + 1));
          // The steps before the bad one are in the log.
          expect(events.filter((e) => e.type === 'node.completed')).toHaveLength(badAt);
        }
      }
    });
  }
});
