import { beforeEach, describe, expect, it } from 'vitest';
import { diffSnapshot, type RunStore, type StoredEvent } from '../../src/index.js';
import { useStoreTarget, type StoreTarget } from './storeTargets.js';

const ev = (runId: string, seq: number, type = 'node.started'): StoredEvent => ({ runId, seq, type, at: 1000 + seq, data: { type, seq, runId } });

/** The behaviour every RunStore must have; runs once per implementation. */
export function runStoreContract(label: string, makeTarget: () => StoreTarget): void {
  describe(`${label}: RunStore contract`, () => {
    const current = useStoreTarget(makeTarget);
    let target: StoreTarget;
    let store: RunStore;
    beforeEach(() => {
      target = current();
      store = target.store;
    });

    const newRun = (runId: string) =>
      store.insertRun({ runId, graphName: 'g', graphHash: 'h1', status: 'running', owner: 'me', leaseExpiresAt: 5_000, snapshot: { n: 1 } });

    it('creates a run at version 1 and reads it back', async () => {
      const created = await newRun('r1');
      expect(created).toMatchObject({ runId: 'r1', graphName: 'g', graphHash: 'h1', status: 'running', version: 1, owner: 'me', leaseExpiresAt: 5_000, lastSeq: 0, snapshot: { n: 1 } });
      // The record insertRun gives is the one read back, key for key (none extra, none undefined).
      expect(await store.getRun('r1')).toStrictEqual(created);
      expect(await store.getRun('missing')).toBeNull();
    });

    it('refuses a second run with the same id', async () => {
      await newRun('dup');
      await expect(newRun('dup')).rejects.toMatchObject({ code: 'run_conflict' });
    });

    it('lists runs newest first, filtered by status', async () => {
      await newRun('a');
      await newRun('b');
      const b = (await store.getRun('b'))!;
      await store.updateRun('b', b.version, { status: 'waiting', waitReason: 'human' });
      expect((await store.listRuns()).map((r) => r.runId).sort()).toEqual(['a', 'b']);
      expect((await store.listRuns({ status: 'waiting' })).map((r) => r.runId)).toEqual(['b']);
      expect((await store.listRuns({ status: 'completed' }))).toEqual([]);
      expect((await store.listRuns({ limit: 1 }))).toHaveLength(1);
    });

    it('writes a patch and its events only at the expected version', async () => {
      await newRun('cas');
      const next = await store.updateRun('cas', 1, { status: 'completed', snapshot: { n: 2 }, outputText: 'done', lastSeq: 2, error: null }, [ev('cas', 1), ev('cas', 2)]);
      expect(next).toBe(2);
      expect(await store.getRun('cas')).toMatchObject({ version: 2, status: 'completed', snapshot: { n: 2 }, outputText: 'done', lastSeq: 2 });
      const stale = await store.updateRun('cas', 1, { status: 'failed' }, [ev('cas', 3)]);
      expect(stale).toBeNull();
      expect((await store.getRun('cas'))!.status).toBe('completed');
      expect((await store.listEvents('cas')).map((e) => e.seq)).toEqual([1, 2]);
      expect(await store.updateRun('nope', 1, { status: 'failed' })).toBeNull();
    });

    it('lets exactly one of two concurrent compare-and-set writes win', async () => {
      await newRun('race');
      const results = await Promise.all([
        store.updateRun('race', 1, { status: 'running', owner: 'p1' }),
        store.updateRun('race', 1, { status: 'running', owner: 'p2' }),
      ]);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect((await store.getRun('race'))!.version).toBe(2);
    });

    it('keeps events in order and reads them after a sequence number', async () => {
      await newRun('ev');
      await store.updateRun('ev', 1, { lastSeq: 3 }, [ev('ev', 1, 'run.started'), ev('ev', 2), ev('ev', 3, 'node.completed')]);
      const all = await store.listEvents('ev');
      expect(all.map((e) => [e.seq, e.type])).toEqual([[1, 'run.started'], [2, 'node.started'], [3, 'node.completed']]);
      expect(all[0]).toEqual(ev('ev', 1, 'run.started'));
      expect((await store.listEvents('ev', { afterSeq: 1 })).map((e) => e.seq)).toEqual([2, 3]);
    });

    it('reads no events after a sequence number beyond any stored one, up to the largest safe integer (a client’s Last-Event-ID)', async () => {
      await newRun('far');
      await store.updateRun('far', 1, { lastSeq: 2 }, [ev('far', 1, 'run.started'), ev('far', 2)]);
      for (const afterSeq of [3, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER]) {
        expect(await store.listEvents('far', { afterSeq }), String(afterSeq)).toEqual([]);
        expect(await store.listEvents('far', { afterSeq, limit: 1 }), String(afterSeq)).toEqual([]);
      }
    });

    it('records a side effect once: the first journal entry wins', async () => {
      await newRun('j');
      expect(await store.getJournal('j', 3, 'charge')).toBeUndefined();
      await store.putJournal('j', 3, 'charge', { receipt: 'R1' });
      await store.putJournal('j', 3, 'charge', { receipt: 'R2' });
      expect(await store.getJournal('j', 3, 'charge')).toEqual({ value: { receipt: 'R1' } });
      expect(await store.getJournal('j', 4, 'charge')).toBeUndefined();
      await store.putJournal('j', 4, 'nothing', null);
      expect(await store.getJournal('j', 4, 'nothing')).toEqual({ value: null });
    });

    it("keeps a specialist's journal under its own run id, which has no run row", async () => {
      await newRun('parent');
      await store.putJournal('parent/tool[1]', 2, 'charge', { receipt: 'R9' });
      expect(await store.getJournal('parent/tool[1]', 2, 'charge')).toEqual({ value: { receipt: 'R9' } });
      expect(await store.getJournal('parent', 2, 'charge')).toBeUndefined();
    });

    it('renews a lease only for its owner, without bumping the version', async () => {
      await newRun('lease');
      expect(await store.renewLease('lease', 'me', 9_000)).toBe(true);
      expect(await store.renewLease('lease', 'someone-else', 99_000)).toBe(false);
      expect(await store.getRun('lease')).toMatchObject({ leaseExpiresAt: 9_000, version: 1 });
    });

    it('does not renew the lease of a run that is no longer running, its owner kept or not', async () => {
      await newRun('lease-cancelled');
      // As cancelRun leaves a running run: cancelled, its owner and lease kept until its leg stops.
      expect(await store.updateRun('lease-cancelled', 1, { status: 'cancelled' })).toBe(2);
      expect(await store.renewLease('lease-cancelled', 'me', 9_000)).toBe(false);
      expect(await store.getRun('lease-cancelled')).toMatchObject({ status: 'cancelled', owner: 'me', leaseExpiresAt: 5_000 });
    });

    it('appends step records at the expected version without writing the run, and reads the snapshot with them applied', async () => {
      await newRun('steps');
      const base = { n: 1 };
      const one = { n: 2, list: ['a'] };
      const two = { n: 2, list: ['a', 'b'], big: { text: 'x'.repeat(2000) } };
      const step = (a: Record<string, unknown>, b: Record<string, unknown>) => JSON.stringify(diffSnapshot(a, b));
      expect(await store.appendSteps!('steps', 1, [step(base, one)], [ev('steps', 1)])).toBe(true);
      expect(await store.appendSteps!('steps', 1, [step(one, two)], [ev('steps', 2), ev('steps', 3)])).toBe(true);
      const read = (await store.getRun('steps'))!;
      expect(read).toMatchObject({ version: 1, lastSeq: 0, snapshot: two });
      expect((await store.listRuns()).find((r) => r.runId === 'steps')?.snapshot).toEqual(two);
      expect((await store.listEvents('steps')).map((e) => e.seq)).toEqual([1, 2, 3]);
      expect((await store.sizeOf('steps')).snapshotBytes).toBe(JSON.stringify(base).length + step(base, one).length + step(one, two).length);
    });

    it('refuses step records at a stale version and writes none of them or their events', async () => {
      await newRun('fenced');
      expect(await store.updateRun('fenced', 1, { status: 'cancelled' })).toBe(2);
      expect(await store.appendSteps!('fenced', 1, [JSON.stringify(diffSnapshot({ n: 1 }, { n: 9 }))], [ev('fenced', 1)])).toBe(false);
      expect(await store.appendSteps!('missing', 1, [JSON.stringify({ set: { n: 9 } })])).toBe(false);
      expect((await store.getRun('fenced'))!.snapshot).toEqual({ n: 1 });
      expect(await store.listEvents('fenced')).toEqual([]);
    });

    it('drops the step records when a new snapshot is written', async () => {
      await newRun('compact');
      expect(await store.appendSteps!('compact', 1, [JSON.stringify(diffSnapshot({ n: 1 }, { n: 2 })), JSON.stringify(diffSnapshot({ n: 2 }, { n: 3 }))])).toBe(true);
      expect((await store.getRun('compact'))!.snapshot).toEqual({ n: 3 });
      expect(await store.updateRun('compact', 1, { snapshot: { n: 3, kept: true } })).toBe(2);
      expect(await store.appendSteps!('compact', 2, [JSON.stringify(diffSnapshot({ n: 3, kept: true }, { n: 4, kept: true }))])).toBe(true);
      expect((await store.getRun('compact'))!.snapshot).toEqual({ n: 4, kept: true });
      expect((await store.sizeOf('compact')).snapshotBytes).toBe(JSON.stringify({ n: 3, kept: true }).length + JSON.stringify({ set: { n: 4 } }).length);
    });

    it('refuses a step record that is not one line of JSON', async () => {
      await newRun('badstep');
      await expect(store.appendSteps!('badstep', 1, ['{"set":\n{}}'])).rejects.toMatchObject({ code: 'store_encoding' });
      await expect(store.appendSteps!('badstep', 1, [])).rejects.toMatchObject({ code: 'store_encoding' });
    });

    it('reads back every event of a commit exactly, whatever page it is read in', async () => {
      await newRun('page');
      const traced = (seq: number): StoredEvent => ({ runId: 'page', seq, type: 'node.completed', at: 2000 + seq, data: { type: 'node.completed', seq, at: 2000 + seq, note: `n${seq}` } });
      // Data that does not repeat its envelope, data that repeats it, and a long value in two events of one commit.
      const odd: StoredEvent = { runId: 'page', seq: 4, type: 'edge.traversed', at: 7, data: { type: 'other', seq: 99 } };
      const long = 'y'.repeat(3000);
      const shared = (seq: number): StoredEvent => ({ runId: 'page', seq, type: 't', at: 1, data: { seq, type: 't', at: 1, text: long } });
      const all = [traced(1), traced(2), traced(3), odd, shared(5), shared(6), traced(7)];
      expect(await store.appendSteps!('page', 1, [JSON.stringify({ set: { n: 2 } })], all.slice(0, 4))).toBe(true);
      expect(await store.updateRun('page', 1, { lastSeq: 7 }, all.slice(4))).toBe(2);
      expect(await store.listEvents('page')).toEqual(all);
      for (let after = 0; after <= 7; after++) {
        for (const limit of [1, 2, 3, 10]) {
          expect(await store.listEvents('page', { afterSeq: after, limit })).toEqual(all.filter((e) => e.seq > after).slice(0, limit));
        }
      }
      // Events of another run in the same write go to that run's log.
      await newRun('other');
      expect(await store.updateRun('page', 2, {}, [traced(8), ev('other', 1), ev('other', 2), traced(9)])).toBe(3);
      expect((await store.listEvents('page', { afterSeq: 7 })).map((e) => e.seq)).toEqual([8, 9]);
      expect(await store.listEvents('other')).toEqual([ev('other', 1), ev('other', 2)]);
    });

    it('names the event that cannot be stored among the events of one commit, and writes none of them', async () => {
      await newRun('badbatch');
      const bad: StoredEvent = { runId: 'badbatch', seq: 2, type: 'node.completed', at: 1, data: { when: new Date(0) } };
      await expect(store.updateRun('badbatch', 1, {}, [ev('badbatch', 1), bad, ev('badbatch', 3)])).rejects.toMatchObject({
        code: 'not_json',
        message: expect.stringContaining('event 2 (node.completed).when'),
      });
      await expect(store.appendSteps!('badbatch', 1, [JSON.stringify({ set: { n: 2 } })], [ev('badbatch', 1), bad])).rejects.toMatchObject({ code: 'not_json' });
      expect(await store.listEvents('badbatch')).toEqual([]);
      expect((await store.getRun('badbatch'))!.snapshot).toEqual({ n: 1 });
    });

    it('refuses a write that repeats a seq inside an earlier commit, and writes nothing of it', async () => {
      await newRun('again');
      const step = (n: number) => JSON.stringify(diffSnapshot({ n: n - 1 }, { n }));
      // Two commits: 1..3 with a step record, 4..5 with the run's row (each one row in the SQL stores, keyed by its last seq).
      expect(await store.appendSteps!('again', 1, [step(2)], [ev('again', 1), ev('again', 2), ev('again', 3)])).toBe(true);
      expect(await store.updateRun('again', 1, { lastSeq: 5 }, [ev('again', 4), ev('again', 5)])).toBe(2);
      const stored = await store.listEvents('again');
      const repeats: StoredEvent[][] = [
        [ev('again', 2, 'node.completed'), ev('again', 6)], // the middle of the first commit
        [ev('again', 1)], // its first
        [ev('again', 4), ev('again', 6)], // the first of the second commit, then a new seq
        [ev('again', 6), ev('again', 7), ev('again', 6)], // a seq repeated inside the write itself
      ];
      for (const events of repeats) {
        await expect(store.updateRun('again', 2, { status: 'failed', lastSeq: 7 }, events)).rejects.toMatchObject({ code: 'run_conflict' });
        await expect(store.appendSteps!('again', 2, [step(3)], events)).rejects.toMatchObject({ code: 'run_conflict' });
      }
      // Another run's events in the same write are checked against that run's log.
      await newRun('again-other');
      expect(await store.updateRun('again-other', 1, {}, [ev('again-other', 1), ev('again-other', 2)])).toBe(2);
      await expect(store.updateRun('again', 2, {}, [ev('again', 6), ev('again-other', 1)])).rejects.toMatchObject({ code: 'run_conflict' });
      expect(await store.getRun('again')).toMatchObject({ version: 2, status: 'running', lastSeq: 5, snapshot: { n: 2 } });
      expect(await store.listEvents('again')).toEqual(stored);
      expect(await store.listEvents('again-other')).toEqual([ev('again-other', 1), ev('again-other', 2)]);
      // The log goes on from where it is.
      expect(await store.appendSteps!('again', 2, [step(3)], [ev('again', 6), ev('again', 7)])).toBe(true);
      expect((await store.listEvents('again')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect((await store.getRun('again'))!.snapshot).toEqual({ n: 3 });
    });

    it('reports the bytes held for a run', async () => {
      await newRun('size');
      await store.updateRun('size', 1, { lastSeq: 1 }, [ev('size', 1)]);
      const size = await store.sizeOf('size');
      expect(size.snapshotBytes).toBe(JSON.stringify({ n: 1 }).length);
      expect(size.eventBytes).toBe(JSON.stringify(ev('size', 1).data).length);
      expect(size.journalBytes).toBe(0);
    });
  });
}
