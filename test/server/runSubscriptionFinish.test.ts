import { describe, expect, it } from 'vitest';
import type { RunRecord, RunStore, StoredEvent } from '../../src/index.js';
import { RunSubscription } from '../../src/server/RunSubscription.js';

const event = (seq: number, type: string, data: Record<string, unknown> = {}): StoredEvent => ({ runId: 'r', seq, type, at: seq, data: { type, runId: 'r', seq, ...data } });

describe('a subscription to a run advanced by another process', () => {
  it('delivers the events stored with the finished status, even when they were committed between its read of the events and of the status', async () => {
    // The other process commits its last events and the finished row in one transaction, which
    // lands after this process read the events and before it read the row.
    const log: StoredEvent[] = [event(1, 'run.started'), event(2, 'node.started'), event(3, 'node.completed')];
    let status = 'running';
    const store = {
      async listEvents(_runId: string, options: { afterSeq?: number } = {}) {
        return log.filter((e) => e.seq > (options.afterSeq ?? 0));
      },
      async getRun() {
        if (status === 'running') {
          log.push(event(4, 'run.completed', { path: 'root', run: { status: 'completed' } }));
          status = 'completed';
        }
        return { runId: 'r', status } as unknown as RunRecord;
      },
    } as unknown as RunStore;
    const delivered: number[] = [];
    const finished = await new Promise<string>((resolve, reject) => {
      const subscription = new RunSubscription('r', 0, { store, liveLog: () => undefined }, {
        deliver: (e) => (delivered.push(e.seq), true),
        finished: resolve,
        failed: reject,
      });
      void subscription.sync();
    });
    expect(finished).toBe('completed');
    expect(delivered).toEqual([1, 2, 3, 4]);
  });
});
