import { describe, expect, it } from 'vitest';
import { OfflineModel, RunManager, StateGraph, StateValidationError, forkRun, stateAt, type RunStore, type WorkflowRun } from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';
import { scenarioMetadata, scenarios } from '../../machines/scenarios.js';
import { useExecLog } from '../support/execLog.js';
import { memoryTarget, postgresTarget, sqliteTarget, useStoreTarget, type StoreTarget } from '../persistence/storeTargets.js';
import { graphs as travelGraphs, tallyGraph } from '../fixtures/timeTravelGraphs.js';

/** Everything a stored run holds that a fork must not change: its row and its log. */
async function dumpRun(store: RunStore, runId: string): Promise<string> {
  return JSON.stringify({ run: await store.getRun(runId), events: await store.listEvents(runId) });
}

const plain = (run: WorkflowRun) => ({ status: run.status, outputText: run.outputText, path: run.path, steps: run.steps, state: Object.fromEntries(run.state) });

/** A run's outcome with times and its own run id (which its specialists' ids repeat) masked. */
const withoutTimes = (run: WorkflowRun) =>
  JSON.parse(JSON.stringify(plain(run)).replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>').replaceAll(run.runId, '<run>')) as unknown;

const { executedSince } = useExecLog();

const targets: [string, () => StoreTarget][] = [
  ['memory', memoryTarget],
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
];

describe.each(targets)('fork on %s', (_name, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('runs a fork at every step to the same result, executing only the nodes after the step, and leaves the parent as it was', async () => {
    const { store } = target();
    const runs = new RunManager({ store, graphs: travelGraphs });
    const parent = await runs.start('tally', 'x', { state: { n: 0 } });
    expect(parent).toMatchObject({ status: 'completed', path: ['count', 'double', 'small'], outputText: 'small 2 after counted x' });
    executedSince();
    const before = await dumpRun(store, parent.runId);
    for (const at of [0, 1, 2, 3]) {
      const fork = await runs.fork(parent.runId, { at });
      expect(fork.runId).not.toBe(parent.runId);
      expect(plain(fork), `at ${at}`).toEqual(plain(parent));
      expect(executedSince(), `at ${at}`).toEqual(['count', 'double', 'small'].slice(at));
      // Up to the fork's step its history is the parent's.
      for (let step = 0; step <= at; step++) expect((await stateAt(store, fork.runId, step)).state).toEqual((await stateAt(store, parent.runId, step)).state);
      expect((await stateAt(store, fork.runId, 0)).forkOf).toEqual({ runId: parent.runId, step: at });
    }
    expect(await dumpRun(store, parent.runId)).toBe(before);
  });

  it('goes on with an edited state, which routing after the step sees, and checks it against the typed state naming the bad key', async () => {
    const { store } = target();
    const runs = new RunManager({ store, graphs: travelGraphs });
    const parent = await runs.start('tally', 'x');
    const at2 = await stateAt(store, parent.runId, 2);
    executedSince();
    const fork = await runs.fork(parent.runId, { at: 2, state: { ...at2.state, n: 50 } });
    expect(fork).toMatchObject({ status: 'completed', path: ['count', 'double', 'big'], outputText: 'big 50 after counted x' });
    expect(executedSince()).toEqual(['big']);
    // The edit is part of step 2's writes in the fork's history.
    expect((await stateAt(store, fork.runId, 2)).state['n']).toBe(50);
    // Removing a key removes it.
    const { seen: _seen, ...withoutSeen } = at2.state;
    const dropped = await runs.fork(parent.runId, { at: 2, state: withoutSeen });
    expect(dropped.state.has('seen')).toBe(false);

    const runCount = (await store.listRuns()).length;
    const wrongType = await runs.fork(parent.runId, { at: 2, state: { ...at2.state, n: 'ten' } }).catch((e: unknown) => e);
    expect(wrongType).toBeInstanceOf(StateValidationError);
    expect(wrongType).toMatchObject({ code: 'state_invalid', key: 'n' });
    expect((wrongType as Error).message).toContain('"n"');
    await expect(runs.fork(parent.runId, { at: 1, state: { n: 1, colour: 'red' } })).rejects.toMatchObject({ code: 'state_undeclared', key: 'colour' });
    await expect(runs.fork(parent.runId, { at: 1, state: [1] as never })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(runs.fork(parent.runId, { at: 0, state: { n: 'zero' } })).rejects.toMatchObject({ code: 'state_invalid', key: 'n' });
    // Refused forks store nothing.
    expect((await store.listRuns()).length).toBe(runCount);
  });

  it('refuses a step beyond the end, an unknown run and a graph that changed shape, typed', async () => {
    const { store } = target();
    const runs = new RunManager({ store, graphs: travelGraphs });
    const parent = await runs.start('tally', 'x');
    await expect(runs.fork(parent.runId, { at: 4 })).rejects.toMatchObject({ name: 'RunStateError', code: 'step_out_of_range' });
    await expect(runs.fork(parent.runId, { at: -1 })).rejects.toMatchObject({ code: 'step_out_of_range' });
    await expect(runs.fork(parent.runId, {} as never)).rejects.toMatchObject({ code: 'step_out_of_range' });
    await expect(runs.fork('nope', { at: 0 })).rejects.toMatchObject({ code: 'run_not_found' });
    const changed = tallyGraph().addNode('extra', () => 'x');
    await expect(forkRun(changed, parent.runId, { at: 1 }, { store })).rejects.toMatchObject({ code: 'graph_changed' });
  });

  it('forks a run that is still running at a step it completed; the parent goes on undisturbed', async () => {
    const { store } = target();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let slowRuns = 0;
    const graph = new StateGraph({ name: 'slow' })
      .addNode('first', (ctx) => (ctx.put('a', 1), 'one'))
      .addNode('wait', async (ctx) => {
        slowRuns += 1;
        if (slowRuns === 1) await gate;
        ctx.put('b', 2);
        return 'two';
      })
      .start('first')
      .addEdge('first', 'wait');
    const runs = new RunManager({ store, graphs: [graph] });
    const pending = runs.start('slow', 'go', { runId: 'slow-parent' });
    // Until step 1 is committed, it is out of range (the run is running).
    for (;;) {
      const at = await stateAt(store, 'slow-parent', 1).catch((e: unknown) => e);
      if (!(at instanceof Error)) break;
      expect(at).toMatchObject({ code: 'step_out_of_range' });
      expect((at as Error).message).toContain('it is running');
      await new Promise((r) => setTimeout(r, 5));
    }
    await expect(runs.fork('slow-parent', { at: 2 })).rejects.toMatchObject({ code: 'step_out_of_range' });
    const fork = await runs.fork('slow-parent', { at: 1 });
    expect(fork).toMatchObject({ status: 'completed', path: ['first', 'wait'], outputText: 'two' });
    expect((await store.getRun('slow-parent'))!.status).toBe('running');
    release();
    const parent = await pending;
    expect(plain(parent)).toEqual(plain(fork));
  });

  it('gives a human node among the replayed steps the reply it got, and waits at one after the step', async () => {
    const { store } = target();
    const runs = new RunManager({ store, graphs: travelGraphs });
    const waiting = await runs.start('signoff', 'the plan');
    const parent = await runs.resume(waiting.runId, { reply: 'signed' });
    expect(parent).toMatchObject({ status: 'completed', outputText: 'doc for the plan: signed' });
    executedSince();
    const after = await runs.fork(parent.runId, { at: 2 });
    expect(plain(after)).toEqual(plain(parent));
    expect(executedSince()).toEqual(['finish']);
    const before = await runs.fork(parent.runId, { at: 1 });
    expect(before).toMatchObject({ status: 'waiting', waiting: { nodeId: 'approve' } });
    expect(executedSince()).toEqual([]);
    const answered = await runs.resume(before.runId, { reply: 'rejected' });
    expect(answered.outputText).toBe('doc for the plan: rejected');
    const at2 = await stateAt(store, parent.runId, 2);
    await expect(runs.fork(parent.runId, { at: 2, state: at2.state })).rejects.toMatchObject({ code: 'fork_unsupported' });
  });

  it('forks a fork, each naming its own parent', async () => {
    const { store } = target();
    const runs = new RunManager({ store, graphs: travelGraphs });
    const parent = await runs.start('tally', 'x');
    const child = await runs.fork(parent.runId, { at: 1 });
    const grandchild = await runs.fork(child.runId, { at: 2, state: { ...(await stateAt(store, child.runId, 2)).state, n: 20 } });
    expect(grandchild.outputText).toBe('big 20 after counted x');
    expect((await stateAt(store, grandchild.runId, 3)).forkOf).toEqual({ runId: child.runId, step: 2 });
    expect((await stateAt(store, child.runId, 3)).forkOf).toEqual({ runId: parent.runId, step: 1 });
  });

  it('forks a typed workflow run to the same output', async () => {
    const { store } = target();
    const runs = new RunManager({ store, graphs: travelGraphs });
    const parent = await runs.start('words', ' a b c ');
    expect(parent.outputText).toBe('3 words');
    executedSince();
    for (let at = 0; at <= parent.steps; at++) {
      const fork = await runs.fork(parent.runId, { at });
      expect(plain(fork), `at ${at}`).toEqual(plain(parent));
      if (at === 0) expect(executedSince()).toEqual(['trim', 'count', 'describe']);
    }
    // Forked after its last step, nothing runs again.
    executedSince();
    await runs.fork(parent.runId, { at: parent.steps });
    expect(executedSince()).toEqual([]);
  });

  it('forks the customer-service scenarios at their first, middle and last steps to the same answers', async () => {
    const { store } = target();
    const runs = new RunManager({ store, graphs: [customerService({ model: new OfflineModel() })] });
    for (const s of scenarios.filter((x) => x.graph === 'customer-service')) {
      let parent = await runs.start('customer-service', { input: s.message, metadata: scenarioMetadata(s) });
      if (parent.status === 'waiting' && s.reply !== undefined) parent = await runs.resume(parent.runId, { reply: s.reply });
      for (const at of [1, Math.floor(parent.steps / 2), parent.steps - 1]) {
        let fork = await runs.fork(parent.runId, { at });
        // A human node after the step waits for its own reply, as the parent did.
        if (fork.status === 'waiting' && s.reply !== undefined && parent.status === 'completed') fork = await runs.resume(fork.runId, { reply: s.reply });
        // The order tool stamps the time it looked an order up, and specialists' run ids start with their parent's.
        expect(withoutTimes(fork), `${s.id} at ${at}`).toEqual(withoutTimes(parent));
      }
    }
  });
});
