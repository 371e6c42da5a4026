import { describe, expect, it } from 'vitest';
import { END, StateGraph } from '../../src/index.js';
import { insertQueuedRun } from '../../src/graph/durable/insertQueuedRun.js';
import { advanceRun } from '../../src/queue/advanceRun.js';
import { postgresTarget, sqliteTarget, useStoreTarget } from '../persistence/storeTargets.js';

const plain = new StateGraph({ name: 'parent-plain' })
  .addNode('work', (_ctx, request) => `worked ${String(request.input)}`)
  .start('work')
  .addEdge('work', END);

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
] as const)('a queued run whose id only looks like a specialist run\'s (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('is run, not cancelled, when a finished run has the name its id starts with', async () => {
    const store = target().store;
    // The user's own runs: "order" finished, then "order:42:1" queued by the user (no coordinator).
    expect((await plain.run('first', { store, runId: 'order' })).status).toBe('completed');
    await insertQueuedRun(plain.toMachine(), 'second', { store, runId: 'order:42:1' });
    const outcome = await advanceRun('order:42:1', { store, graphs: new Map([[plain.name, plain]]), owner: 'test/1/a', leaseMs: 30_000 });
    expect(outcome.outcome).toBe('advanced');
    expect(await store.getRun('order:42:1')).toMatchObject({ status: 'completed', outputText: 'worked second' });
  });
});
