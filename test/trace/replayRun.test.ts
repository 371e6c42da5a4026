import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRecorder, SqliteRunStore, StateGraph, StoreError, replayRun } from '../../src/index.js';

const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-replay-')), 'runs.db') });
afterAll(() => store.close());
const graph = new StateGraph({ name: 'replayed' }).addNode('a', () => 'A').addNode('b', () => 'B').start('a').addEdge('a', 'b');

describe('replayRun', () => {
  it('feeds a stored run to recorders exactly as they would have recorded it live', async () => {
    const live = new MemoryRecorder();
    const run = await graph.run('x', { store, recorders: [live] });
    const replayed = new MemoryRecorder();
    expect(await replayRun(store, run.runId, [replayed])).toBe(live.events.length);
    expect(replayed.events).toEqual(JSON.parse(JSON.stringify(live.events)));
    const tail = new MemoryRecorder();
    await replayRun(store, run.runId, [tail], { afterSeq: 3 });
    expect(tail.events.map((e) => e.seq)).toEqual(live.events.slice(3).map((e) => e.seq));
  });

  it('refuses a stored event without an envelope', async () => {
    const run = await graph.run('x', { store });
    const record = (await store.getRun(run.runId))!;
    await store.updateRun(run.runId, record.version, {}, [{ runId: run.runId, seq: record.lastSeq + 1, type: 'odd', at: 0, data: { type: 'odd' } }]);
    const error = await replayRun(store, run.runId, [new MemoryRecorder()]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('store_corrupt');
    expect((error as StoreError).message).toMatch(/^stored event \d+ of run .* is not a trace event/);
  });
});
