import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteRunStore, StateGraph, type RunStore, type WorkflowRun } from '../../src/index.js';

/**
 * first → slow: slow writes `early`, then waits for `release` (it ignores its abort signal), then
 * writes `late`. The run is stopped while slow waits.
 */
function stoppedMidNode() {
  let release: () => void = () => {};
  let finished: () => void = () => {};
  const done = new Promise<void>((resolve) => (finished = resolve));
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const graph = new StateGraph({ name: 'stopped-mid-node' })
    .addNode('first', (ctx) => {
      ctx.put('kept', 1);
      return 'one';
    })
    .addNode('slow', async (ctx) => {
      ctx.put('early', 'written before the stop');
      markStarted();
      await new Promise<void>((resolve) => (release = resolve));
      ctx.put('late', 'written after the run returned');
      finished();
      return 'too late';
    })
    .start('first')
    .addEdge('first', 'slow');
  return { graph, started, release: () => release(), done };
}

const entries = (run: WorkflowRun) => Object.fromEntries([...run.state].filter(([key]) => !['lastResult', 'lastNodeId', 'currentNodeId', 'currentRequest'].includes(key)));

describe('the state a stopped run returns', () => {
  const stores: Array<[string, () => RunStore | undefined]> = [
    ['in memory', () => undefined],
    ['stored in SQLite', () => new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-returned-state-')), 'runs.db') })],
  ];
  it.each(stores)('%s: holds the settled steps\' writes only, and a node still going after the stop changes nothing of it later', async (_label, makeStore) => {
    const store = makeStore();
    const { graph, started, release, done } = stoppedMidNode();
    const controller = new AbortController();
    const running = graph.run('go', { signal: controller.signal, ...(store === undefined ? {} : { store }) });
    await started;
    controller.abort();
    const run = await running;
    expect(run.status).toBe('cancelled');
    const returned = entries(run);
    release();
    await done;
    await new Promise((resolve) => setImmediate(resolve));
    // Compared after the fact: the object handed back is as it was when it was handed back.
    expect(entries(run)).toEqual(returned);
    expect(run.state.has('late')).toBe(false);
    // The stopped step never settled: its writes are not the run's, as the stored run says.
    expect(returned).toEqual({ kept: 1 });
    if (store !== undefined) {
      const row = await store.getRun(run.runId);
      const stored = (row?.snapshot as { context?: { state?: Record<string, unknown> } } | null)?.context?.state ?? {};
      expect(stored['kept']).toBe(1);
      expect('early' in stored).toBe(false);
    }
  });
});
