import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteRunStore, StateGraph, type StoredEvent, type WorkflowContext } from '../../../src/index.js';

/** A SQLite store that reads the run back after every commit of step records, as a recovery would. */
class WatchedStore extends SqliteRunStore {
  readonly commits: Array<{ records: number; steps: number; count: unknown; big: unknown }> = [];

  override async appendSteps(runId: string, expectedVersion: number, steps: readonly string[], events: StoredEvent[] = []): Promise<boolean> {
    const written = await super.appendSteps(runId, expectedVersion, steps, events);
    const snapshot = (await this.getRun(runId))?.snapshot as { context: { steps: number; state: Record<string, unknown> } };
    this.commits.push({ records: steps.length, steps: snapshot.context.steps, count: snapshot.context.state['count'], big: snapshot.context.state['big'] });
    return written;
  }
}

const stores: SqliteRunStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

describe('step records of a stored run', () => {
  it('are one per commit, and each commit reads back as the run stood at its last step (values written and removed in between leave nothing)', async () => {
    const store = new WatchedStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-commit-')), 'runs.db') });
    stores.push(store);
    // Every step counts; every third one writes a 2 KB value that the next step removes again.
    const step = (ctx: WorkflowContext) => {
      const count = (ctx.get<number>('count') ?? 0) + 1;
      ctx.put('count', count);
      ctx.put('big', count % 3 === 0 ? `${count}:${'y'.repeat(2048)}` : null);
      return null;
    };
    const graph = new StateGraph({ name: 'commits', maxSteps: 600 }).addNode('a', step).addNode('b', step).start('a').addEdge('a', 'b').addEdge('b', 'a');
    const run = await graph.run('go', { store });
    expect(run.status).toBe('max-steps');
    expect(run.state.get('count')).toBe(600);
    // 600 steps whose nodes never yield: a commit every 128 steps (the last ones go in the final snapshot).
    expect(store.commits.map((c) => c.steps)).toEqual([129, 257, 385, 513]);
    // The run's row starts at step 1 (the first node in flight).
    let last = 1;
    for (const commit of store.commits) {
      expect(commit.records).toBe(1);
      // The node of step n in flight has written nothing yet: the state is that of step n - 1.
      expect(commit.count).toBe(commit.steps - 1);
      expect(commit.big).toBe((commit.steps - 1) % 3 === 0 && commit.steps > 1 ? `${commit.steps - 1}:${'y'.repeat(2048)}` : null);
      expect(commit.steps - last).toBeLessThanOrEqual(128);
      last = commit.steps;
    }
    const stored = await store.getRun(run.runId);
    expect((stored?.snapshot as { context: { state: Record<string, unknown> } }).context.state['count']).toBe(600);
  });
});
