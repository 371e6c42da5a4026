import { describe, expect, it } from 'vitest';
import { MemoryRunStore } from '../../src/index.js';
import { runStoreContract } from './runStoreContract.js';
import { durableContract } from '../graph/durable/durableContract.js';
import { memoryTarget } from './storeTargets.js';
import { storeEncodingContract } from './storeEncodingContract.js';

runStoreContract('MemoryRunStore', memoryTarget);
durableContract('MemoryRunStore', memoryTarget, { crossProcess: false });
storeEncodingContract('MemoryRunStore', (options) => new MemoryRunStore(options));

const newRun = (store: MemoryRunStore, runId: string) =>
  store.insertRun({ runId, graphName: 'g', graphHash: 'h', status: 'running', owner: null, leaseExpiresAt: null, snapshot: { n: 1, nested: { list: [1, 2] } } });

describe('MemoryRunStore', () => {
  it('hands out copies: changing what it returned or what it was given changes nothing stored', async () => {
    const store = new MemoryRunStore();
    const snapshot = { n: 1, nested: { list: [1, 2] } };
    await store.insertRun({ runId: 'r', graphName: 'g', graphHash: 'h', status: 'running', owner: null, leaseExpiresAt: null, snapshot });
    snapshot.nested.list.push(3);
    const read = (await store.getRun('r'))!;
    (read.snapshot as typeof snapshot).nested.list.push(4);
    read.status = 'failed';
    expect(await store.getRun('r')).toMatchObject({ status: 'running', snapshot: { n: 1, nested: { list: [1, 2] } } });
  });

  it('refuses a batch with a sequence number it already holds, and writes none of it', async () => {
    const store = new MemoryRunStore();
    await newRun(store, 'r');
    const ev = (seq: number) => ({ runId: 'r', seq, type: 'x', at: seq, data: { seq } });
    expect(await store.updateRun('r', 1, { lastSeq: 1 }, [ev(1)])).toBe(2);
    await expect(store.updateRun('r', 2, { status: 'failed', lastSeq: 2 }, [ev(2), ev(1)])).rejects.toMatchObject({ code: 'run_conflict' });
    expect(await store.getRun('r')).toMatchObject({ version: 2, status: 'running', lastSeq: 1 });
    expect((await store.listEvents('r')).map((e) => e.seq)).toEqual([1]);
  });

  it('keeps only the newest finished runs when asked to, never a live one', async () => {
    const store = new MemoryRunStore({ maxFinishedRuns: 2 });
    for (const id of ['a', 'b', 'c', 'live']) await newRun(store, id);
    await store.putJournal('a', 1, 'k', 'v');
    for (const id of ['a', 'b', 'c']) await store.updateRun(id, 1, { status: 'completed' });
    expect((await store.listRuns()).map((r) => r.runId).sort()).toEqual(['b', 'c', 'live']);
    expect(await store.getJournal('a', 1, 'k')).toBeUndefined();
    expect(() => new MemoryRunStore({ maxFinishedRuns: -1 })).toThrow(/maxFinishedRuns must be a non-negative integer/);
  });
});
