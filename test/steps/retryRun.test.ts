import { describe, expect, it } from 'vitest';
import { Agent, AgentContext, AgentNode, END, MemoryRunStore, RunStateError, StateGraph, TransitionRecorder, Workflow, analyzeTransitions, checkpointingStepRunner, retryRun, step, storedTransitions } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { memoryTarget, postgresTarget, sqliteTarget, type StoreTarget, storesClosedAfterEach } from '../persistence/storeTargets.js';

/** A gate step three waits on (open by default), and an outage that makes it fail. */
function controls() {
  return { outage: { on: true }, gate: Promise.resolve() as Promise<void>, runs: { one: 0, three: 0 } };
}

/** one → two → three; two and three read the initial state the run was started with. */
function pipeline(c: ReturnType<typeof controls>) {
  return new StateGraph({ name: 'tenant-pipeline' })
    .addNode('one', (_ctx, request) => ((c.runs.one += 1), `${String(request.input)}-1`))
    .addNode('two', (ctx, request) => `${String(request.input)}-2@${String(ctx.get('tenant'))}`)
    .addNode('three', async (ctx, request) => {
      c.runs.three += 1;
      await c.gate;
      if (c.outage.on) throw new Error('upstream 503');
      return `${String(request.input)}-3 limit ${String(ctx.get('limit'))}`;
    })
    .start('one')
    .addEdge('one', 'two')
    .addEdge('two', 'three')
    .addEdge('three', END);
}

/** The same as a typed workflow: three reads the initial context and the run's own id. */
function flow(c: ReturnType<typeof controls>) {
  return Workflow.define<string>('tenant-flow')
    .step(step('one', (_c, s: string) => ((c.runs.one += 1), `${s}-1`)))
    .then(
      step('three', async (ctx, s: string) => {
        c.runs.three += 1;
        await c.gate;
        if (c.outage.on) throw new Error('upstream 503');
        return `${s}-3 ${String(ctx.get('tenant' as never))} ${String(ctx.get(AgentContext.WORKFLOW_RUN_ID))}`;
      }),
    );
}

const targets: Array<[string, () => StoreTarget]> = [
  ['MemoryRunStore', memoryTarget],
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
];
const storeOf = storesClosedAfterEach();

describe.each(targets)('retryRun on %s', (_name, make) => {
  it('starts the failed run again with the initial state it was started with, reusing the completed steps', async () => {
    const store = storeOf(make);
    const state = { tenant: 'acme', limit: 3 };
    const reference = await pipeline({ ...controls(), outage: { on: false } }).run('order', { state });
    const c = controls();
    const failed = await pipeline(c).run('order', { runId: 'r-1', store, state, stepRunner: checkpointingStepRunner(store) });
    expect(failed.status).toBe('failed');
    c.outage.on = false;
    const { reset, run } = await retryRun(pipeline(c), 'r-1', { store });
    expect(reset).toEqual(['3:three']);
    expect(run.status).toBe('completed');
    expect(run.outputText).toBe(reference.outputText);
    expect(run.outputText).toBe('order-1-2@acme-3 limit 3');
    expect(run.state.get('tenant')).toBe('acme');
    expect(c.runs).toEqual({ one: 1, three: 2 });
    expect((await store.getRun('r-1'))?.status).toBe('completed');
  });

  it('a typed workflow comes back with its initial context and its own run id', async () => {
    const store = storeOf(make);
    const c = controls();
    const graph = flow(c).asGraph();
    const failed = await graph.run('order', { runId: 'wf-1', store, state: { tenant: 'acme' }, stepRunner: checkpointingStepRunner(store) });
    expect(failed.status).toBe('failed');
    c.outage.on = false;
    const { run } = await retryRun(flow(c).asGraph(), 'wf-1', { store });
    expect(run.status).toBe('completed');
    expect(run.outputText).toBe('order-1-3 acme wf-1');
  });

  it('keeps the budget the run was started with, and what it had spent: the retry cannot overspend', async () => {
    const store = storeOf(make);
    const outage = { on: true };
    const agent = (name: string) => new AgentNode(new Agent({ name, instructions: 'i', model: new ScriptedModel([{ text: name, usage: { inputTokens: 90, outputTokens: 10, totalTokens: 100 } }]) }));
    const metered = () =>
      new StateGraph({ name: 'metered' })
        .addNode('ask', agent('ask'))
        .addNode('three', () => {
          if (outage.on) throw new Error('upstream 503');
          return 'three';
        })
        .addNode('more', agent('more'))
        .addNode('tail', () => 'tail')
        .start('ask')
        .addEdge('ask', 'three')
        .addEdge('three', 'more')
        .addEdge('more', 'tail')
        .addEdge('tail', END);
    const failed = await metered().run('go', { runId: 'b-1', store, stepRunner: checkpointingStepRunner(store), budget: { maxTokens: 150 } });
    expect(failed.status).toBe('failed');
    expect(failed.spent?.tokens).toBe(100);
    outage.on = false;
    const { run } = await retryRun(metered(), 'b-1', { store });
    // ask is reused (its 100 tokens were spent by the first leg), more spends 100: 200 of 150, and tail never runs.
    expect(run.status).toBe('budget-exceeded');
    expect(run.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 150, spent: 200 });
    expect(run.spent?.tokens).toBe(200);
    expect(run.path).not.toContain('tail');
    expect((await store.getRun('b-1'))?.status).toBe('budget-exceeded');
  });

  it('a retried run is analysed as one run that went from its start to an end twice, not one looping through its failure', async () => {
    const store = storeOf(make);
    const c = controls();
    const live = new TransitionRecorder();
    await pipeline(c).run('order', { runId: 'a-1', store, stepRunner: checkpointingStepRunner(store), recorders: [live] });
    c.outage.on = false;
    expect((await retryRun(pipeline(c), 'a-1', { store, recorders: [live] })).run.status).toBe('completed');
    const stored = await storedTransitions(store, { graph: 'tenant-pipeline' });
    expect(stored.map((r) => `${r.from}>${r.to}`)).toEqual(live.records.map((r) => `${r.from}>${r.to}`));
    for (const records of [live.records, stored]) {
      const a = analyzeTransitions(records);
      expect(a.runs).toBe(1);
      expect(a.endProbabilities).toEqual({ failed: 0.5, completed: 0.5 });
      expect(a.cycles).toEqual([]);
      expect(a.thrash.windows).toBe(6);
    }
  });

  it('the row goes failed → running → its new end by compare-and-set, events numbered on; only a failed run is retried', async () => {
    const store = storeOf(make);
    const c = controls();
    const failed = await pipeline(c).run('order', { runId: 'r-2', store, state: { tenant: 't', limit: 1 }, stepRunner: checkpointingStepRunner(store) });
    const before = await store.getRun('r-2');
    const seqs = (await store.listEvents('r-2')).map((e) => e.seq);
    expect([failed.status, before?.status]).toEqual(['failed', 'failed']);
    c.outage.on = false;
    let release!: () => void;
    c.gate = new Promise((resolve) => (release = resolve));
    const retrying = retryRun(pipeline(c), 'r-2', { store });
    while (c.runs.three < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const during = await store.getRun('r-2');
    expect(during?.status).toBe('running');
    expect(during!.version).toBeGreaterThan(before!.version);
    expect((await store.listRuns({ status: 'failed' })).map((r) => r.runId)).not.toContain('r-2');
    expect((await store.listRuns({ status: 'running' })).map((r) => r.runId)).toContain('r-2');
    // A second retry while it runs is refused: the run is not failed any more.
    await expect(retryRun(pipeline(c), 'r-2', { store })).rejects.toBeInstanceOf(RunStateError);
    // ...as a conflict with the leg that runs it, not as a finished run.
    await expect(retryRun(pipeline(c), 'r-2', { store })).rejects.toMatchObject({ code: 'run_conflict', message: expect.stringContaining('once it has failed') });
    release();
    expect((await retrying).run.status).toBe('completed');
    const after = (await store.listEvents('r-2')).map((e) => e.seq);
    expect(after.slice(0, seqs.length)).toEqual(seqs);
    expect(after.every((seq, i) => i === 0 || seq > after[i - 1]!)).toBe(true);
    expect(after.length).toBeGreaterThan(seqs.length);
    // A completed run stays completed: a retry is refused and changes nothing.
    const done = await store.getRun('r-2');
    await expect(retryRun(pipeline(c), 'r-2', { store })).rejects.toMatchObject({ code: 'run_finished' });
    expect((await store.getRun('r-2'))?.version).toBe(done?.version);
  });
});

describe('MemoryRunStore keeping maxFinishedRuns', () => {
  it('does not drop a failed run an operator retries while it runs, and counts it as the newest to finish after', async () => {
    const store = new MemoryRunStore({ maxFinishedRuns: 1 });
    const c = controls();
    await pipeline(c).run('order', { runId: 'old', store, stepRunner: checkpointingStepRunner(store) });
    c.outage.on = false;
    let release!: () => void;
    c.gate = new Promise((resolve) => (release = resolve));
    const retrying = retryRun(pipeline(c), 'old', { store });
    while (c.runs.three < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    // Another run finishes meanwhile: with one finished run kept, it must not push out the running one.
    const other = await new StateGraph({ name: 'other' }).addNode('a', () => 'a').start('a').run('x', { runId: 'other', store });
    expect(other.status).toBe('completed');
    expect((await store.getRun('old'))?.status).toBe('running');
    release();
    expect((await retrying).run.status).toBe('completed');
    expect((await store.getRun('old'))?.status).toBe('completed');
    // The retried run finished last: it is the one kept.
    expect(await store.getRun('other')).toBeNull();
  });
});
