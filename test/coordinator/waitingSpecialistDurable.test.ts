import { describe, expect, it } from 'vitest';
import { resumeRun, type TaskResult } from '../../src/index.js';
import { dispatchGraph } from '../fixtures/durableGraphs.js';
import { runChild } from '../graph/durable/childProcess.js';
import { postgresTarget, sqliteTarget, useStoreTarget } from '../persistence/storeTargets.js';

describe.each([
  ['SqliteRunStore', sqliteTarget],
  ['PostgresRunStore', postgresTarget],
])('a three-specialist dispatch with a human node in one specialist, stored (%s)', (label, makeTarget) => {
  const current = useStoreTarget(makeTarget);

  it('waits, survives its process, is resumed from another process, and the join completes', async () => {
    const target = current();
    const runId = `dispatch-${label.toLowerCase()}-${Date.now()}`;
    const started = await runChild(['start', 'dispatch-with-human', 'SO1, SO2', runId], target.env);
    expect(started.output, started.stderr).toMatchObject({
      runId,
      status: 'waiting',
      path: ['plan', 'dispatch'],
      waiting: { nodeId: 'dispatch', specialist: { index: 1, kind: 'refund', path: 'root/refund[2]', nodeId: 'approve' } },
    });
    // The first process has exited: the wait is in the store, with the specialist's own snapshot inside.
    const stored = (await target.store.getRun(runId))!;
    expect(stored).toMatchObject({ status: 'waiting', owner: null, waitReason: 'refund[2] (root/refund[2]) waits at approve: approve a refund of 599 CNY for SO2' });

    const resumed = await runChild(['resume', runId, 'approved in process 2'], target.env);
    expect(resumed.output, resumed.stderr).toMatchObject({
      status: 'completed',
      path: ['plan', 'dispatch', 'review'],
      outputText: 'orders: status of SO1 is shipped | refund: refund SO2: approved in process 2 | policy: returns within 30 days',
    });
    const record = (await target.store.getRun(runId))!;
    const results = (record.snapshot as { context: { state: { specialistResults: TaskResult[] } } }).context.state.specialistResults;
    expect(results.map((r) => [r.kind, r.status, r.attempts])).toEqual([
      ['orders', 'completed', 1],
      ['refund', 'completed', 1],
      ['policy', 'completed', 1],
    ]);
    const events = await target.store.listEvents(runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const types = events.map((e) => `${String(e.data.path)} ${e.type}`);
    expect(types).toContain('root/refund[2] run.waiting');
    expect(types).toContain('root run.resumed');
    expect(types.filter((t) => t === 'root specialist.completed')).toHaveLength(3);

    const refused = await runChild(['resume', runId, 'again'], target.env);
    expect(refused.output).toMatchObject({ error: { name: 'RunStateError', code: 'run_finished' } });
  });

  it('recovers a run killed while its specialists were in flight: they run again, the run waits, a reply finishes it', async () => {
    const target = current();
    const runId = `dispatch-kill-${label.toLowerCase()}-${Date.now()}`;
    const killed = await runChild(['start', 'dispatch-with-human', 'SO3, SO4', runId], { ...target.env, KILL_AT: 'look:before' });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const recovered = await runChild(['recover'], target.env);
    expect((recovered.output as Array<{ runId: string }>).find((o) => o.runId === runId), recovered.stderr).toMatchObject({
      outcome: 'recovered',
      status: 'waiting',
      waiting: { specialist: { kind: 'refund', nodeId: 'approve' } },
    });
    const resumed = await runChild(['resume', runId, 'approved after a crash'], target.env);
    expect(resumed.output, resumed.stderr).toMatchObject({
      status: 'completed',
      outputText: 'orders: status of SO3 is shipped | refund: refund SO4: approved after a crash | policy: returns within 30 days',
    });
    const events = await target.store.listEvents(runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it('recovers a run killed after its dispatch was stored with specialists in flight (each restored specialist runs its node again)', async () => {
    const target = current();
    const runId = `dispatch-later-${label.toLowerCase()}-${Date.now()}`;
    const killed = await runChild(['start', 'dispatch-with-human', 'SO5, SO6', runId], { ...target.env, KILL_AT: 'look:later' });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    // The case this covers: the stored dispatch holds the orders specialist with its node in flight.
    const stored = (await target.store.getRun(runId))!.snapshot as { children: Record<string, { snapshot: { children: Record<string, { snapshot: { context: { inFlight: string | null } } }> } }> };
    const inFlight = Object.values(stored.children.dispatch!.snapshot.children).map((c) => c.snapshot.context.inFlight);
    expect(inFlight).toContain('look');
    const recovered = await runChild(['recover'], target.env);
    expect(recovered.code, recovered.stderr).toBe(0);
    expect((recovered.output as Array<{ runId: string }>).find((o) => o.runId === runId), recovered.stderr).toMatchObject({
      outcome: 'recovered',
      status: 'waiting',
      waiting: { specialist: { kind: 'refund', nodeId: 'approve' } },
    });
    const resumed = await runChild(['resume', runId, 'approved after a later crash'], target.env);
    expect(resumed.output, resumed.stderr).toMatchObject({
      status: 'completed',
      outputText: 'orders: status of SO5 is shipped | refund: refund SO6: approved after a later crash | policy: returns within 30 days',
    });
  });

  it('refuses, before anything changes, a reply the waiting specialist would not take', async () => {
    const { store } = current();
    const graph = dispatchGraph();
    const run = await graph.run('SO7, SO8', { store });
    expect(run.status).toBe('waiting');
    const before = await store.getRun(run.runId);
    await expect(resumeRun(graph, run.runId, { reply: { approved: true } }, { store })).rejects.toMatchObject({
      code: 'invalid_reply',
      message: expect.stringContaining('human node "approve" in root/refund[2]: this node takes a text reply'),
    });
    expect(await store.getRun(run.runId)).toEqual(before);
    const done = await resumeRun(graph, run.runId, { reply: 'ok' }, { store });
    expect(done.outputText).toContain('refund: refund SO8: ok');
  });
});
