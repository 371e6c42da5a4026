import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Coordinator, SqliteRunStore, StateGraph, storedSpecialistRuns, type WorkflowRun } from '../../src/index.js';
import { insertQueuedRun } from '../../src/graph/durable/insertQueuedRun.js';
import { advanceRun } from '../../src/queue/advanceRun.js';
import { withSpecialistGraphs } from '../../src/queue/specialistGraphs.js';
import { until } from '../support/until.js';
import { planDispatchGraph } from '../support/planDispatchGraph.js';

/**
 * A coordinator whose specialists are stored runs of their own (a worker of the run queue), and whose
 * dispatch fails: its needsHuman throws on the quick task's state. The slow task's run is running on
 * another worker (its node held by the test) when the coordinator run fails.
 */
function setup() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const slowStarted = new Promise<void>((resolve) => (started = resolve));
  const worked: string[] = [];
  const specialist = new StateGraph({ name: 'spec-a' })
    .addNode('work', async (ctx, request) => {
      if (request.input === 'slow') {
        started();
        await released;
      }
      worked.push(`${ctx.runId} work`);
      return request.input === 'slow' ? 'slow answer' : 'quick answer';
    })
    .addNode('charge', (ctx) => (worked.push(`${ctx.runId} charge`), 'charged'))
    .start('work')
    .addConditionalEdges('work', (_ctx, request) => (request.input === 'slow answer' ? 'charge' : null));
  const coordinator = new Coordinator({
    specialists: { a: specialist },
    needsHuman: (state) => ((state.lastResult as { outputText?: string } | undefined)?.outputText === 'quick answer' ? (state.handoff as { reason: string }).reason : null),
  });
  const graph = planDispatchGraph(coordinator, coordinator.planNode(() => [{ kind: 'a', input: 'slow' }, { kind: 'a', input: 'quick' }]), 'desk');
  const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'failed-join-queue-')), 'runs.db') });
  const graphs = withSpecialistGraphs([graph]);
  const specialistRuns = storedSpecialistRuns(store);
  const advance = (runId: string, worker: string) => advanceRun(runId, { store, graphs, owner: `test/${worker}`, leaseMs: 30_000, specialistRuns });
  return { graph, store, advance, release, slowStarted, worked };
}

describe('a coordinator run on the queue whose dispatch fails', () => {
  it('cancels its specialist run still running: it stops at its next checkpoint instead of working on for nobody', async () => {
    const s = setup();
    await insertQueuedRun(s.graph.toMachine(), 'composite', { store: s.store, runId: 'parent1' });
    const parked = (await s.advance('parent1', 'w1')) as { run: WorkflowRun };
    expect(parked.run.waiting?.queued?.runs.map((r) => r.runId)).toEqual(['parent1:2:1', 'parent1:2:2']);
    // The slow task's run is taken by a worker and is in its node; the quick one ends.
    const slowLeg = s.advance('parent1:2:1', 'w2');
    await s.slowStarted;
    expect((await s.store.getRun('parent1:2:1'))?.status).toBe('running');
    await s.advance('parent1:2:2', 'w3');
    // The coordinator run looks again: its dispatch fails on the quick task's state.
    const failed = (await s.advance('parent1', 'w1')) as { run: WorkflowRun };
    expect(failed.run.status).toBe('failed');
    expect(failed.run.error?.message).toContain("needsHuman threw on a[2]'s final state: Cannot read properties of undefined (reading 'reason')");
    expect((await s.store.getRun('parent1'))?.status).toBe('failed');
    // Its specialist run still out is cancelled in the store (the cancel is not awaited by the leg).
    await until('the slow specialist run to be cancelled', async () => (await s.store.getRun('parent1:2:1'))?.status === 'cancelled', { ms: 10_000 });
    // The slow run is released and its leg ends: cancelled, its next node never ran.
    s.release();
    await slowLeg;
    expect((await s.store.getRun('parent1:2:1'))?.status).toBe('cancelled');
    expect(s.worked).not.toContain('parent1:2:1 charge');
  });
});
