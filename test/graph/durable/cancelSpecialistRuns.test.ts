import { describe, expect, it } from 'vitest';
import { cancelRun } from '../../../src/index.js';
import { postgresTarget, sqliteTarget, useStoreTarget } from '../../persistence/storeTargets.js';
import { storeWith } from '../../support/storeWith.js';

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
] as const)('cancelling a coordinator run that waits for its specialist runs (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('cancels the others and resolves cancelled when one specialist run cannot be cancelled', async () => {
    const store = target().store;
    const queued = { runs: [{ index: 0, kind: 'spec', runId: 'desk:2:1' }, { index: 1, kind: 'spec', runId: 'desk:2:2' }], wakeAt: null };
    await store.insertRun({ runId: 'desk', graphName: 'g', graphHash: 'h', status: 'waiting', owner: null, leaseExpiresAt: null, snapshot: { context: { waiting: { nodeId: 'dispatch', reason: 'specialists', since: 0, queued } } } });
    for (const { runId } of queued.runs) {
      await store.insertRun({ runId, graphName: 's', graphHash: 'h', status: 'running', owner: 'elsewhere/1/b', leaseExpiresAt: Date.now() + 60_000, snapshot: { context: {} } });
    }
    // The first one's leg checkpoints faster than a cancel can land (every compare-and-set lost).
    const busy = storeWith(store, {
      updateRun: (original) => async (runId: string, ...rest: unknown[]) => (runId === 'desk:2:1' ? null : original(runId, ...rest)),
    });
    expect((await cancelRun(busy, 'desk')).status).toBe('cancelled');
    expect((await store.getRun('desk:2:2'))!.status).toBe('cancelled');
  });
});
