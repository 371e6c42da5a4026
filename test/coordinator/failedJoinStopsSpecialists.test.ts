import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Coordinator, SqliteRunStore, StateGraph, type WorkflowEvent } from '../../src/index.js';
import { planDispatchGraph } from '../support/planDispatchGraph.js';

/** Lets pending timers, I/O and promise jobs run (no time is measured). */
const settle = async () => {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

/**
 * Task `slow` waits until its signal aborts or the test releases it, then goes on to a second node;
 * task `quick` answers at once. The coordinator's needsHuman throws on quick's state, as a check
 * reading a field that is not there does.
 */
function setup() {
  const seen = { aborted: false, afterRelease: [] as string[] };
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const specialist = new StateGraph({ name: 'a' })
    .addNode('work', async (ctx, request) => {
      if (request.input !== 'slow') return 'quick answer';
      await new Promise<void>((resolve) => {
        ctx.signal.addEventListener('abort', () => ((seen.aborted = true), resolve()));
        void released.then(resolve);
      });
      ctx.put('late', true);
      return 'slow answer';
    })
    .addNode('more', () => (seen.afterRelease.push('more ran'), 'more'))
    .start('work')
    .addConditionalEdges('work', (_ctx, request) => (request.input === 'slow answer' ? 'more' : null));
  const coordinator = new Coordinator({
    specialists: { a: specialist },
    needsHuman: (state) => {
      if (state.lastNodeId === 'work' && (state.lastResult as { outputText?: string } | undefined)?.outputText === 'quick answer') {
        return (state.handoff as { reason: string }).reason;
      }
      return null;
    },
  });
  const graph = planDispatchGraph(coordinator, coordinator.planNode(() => [{ kind: 'a', input: 'slow' }, { kind: 'a', input: 'quick' }]));
  return { graph, seen, release };
}

describe('a dispatch that fails (its needsHuman throws)', () => {
  for (const where of ['memory', 'SQLite file'] as const) {
    it(`stops the specialists still out before the run returns; none of them runs on or emits afterwards (${where})`, async () => {
      const { graph, seen, release } = setup();
      const store = where === 'memory' ? undefined : new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'failed-join-')), 'runs.db') });
      const events: WorkflowEvent[] = [];
      const run = await graph.run('x', { onEvent: (e) => events.push(e), ...(store === undefined ? {} : { store }) });
      expect(run.status).toBe('failed');
      expect(run.error?.code).toBe('node_failed');
      expect(run.error?.message).toContain("needsHuman threw on a[2]'s final state: Cannot read properties of undefined (reading 'reason')");
      expect(seen.aborted).toBe(true);
      const returned = events.length;
      expect(events.at(-1)?.type).toBe('run.completed');
      release();
      await settle();
      expect(seen.afterRelease).toEqual([]);
      expect(events.slice(returned).map((e) => e.type)).toEqual([]);
      expect(run.state.has('late')).toBe(false);
      if (store !== undefined) {
        const stored = await store.listEvents(run.runId);
        expect(stored.at(-1)).toMatchObject({ type: 'run.completed' });
        expect((await store.getRun(run.runId))?.status).toBe('failed');
      }
    });
  }
});
