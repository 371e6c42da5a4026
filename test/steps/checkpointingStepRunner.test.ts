import { describe, expect, it } from 'vitest';
import {
  CheckpointManager,
  END,
  MemoryRunStore,
  StateGraph,
  StepFailedError,
  Workflow,
  checkpointingStepRunner,
  localStepRunner,
  step,
  type RunStore,
  type StepRecord,
} from '../../src/index.js';
import { memoryTarget, postgresTarget, sqliteTarget, type StoreTarget, storesClosedAfterEach } from '../persistence/storeTargets.js';

/** Counts executions per step; the third step fails while `outage.on` is true (a transient fault). */
function counters() {
  const runs: Record<string, number> = { one: 0, two: 0, three: 0, four: 0 };
  const outage = { on: true };
  return { runs, outage };
}

function pipeline({ runs, outage }: ReturnType<typeof counters>) {
  return new StateGraph({ name: 'pipeline' })
    .addNode('one', (ctx, request) => {
      runs.one! += 1;
      ctx.put('fetched', `${String(request.input)}:fetched`);
      return `${String(request.input)}-1`;
    })
    .addNode('two', (ctx, request) => {
      runs.two! += 1;
      ctx.put('priced', 42);
      return `${String(request.input)}-2`;
    })
    .addNode('three', (ctx, request) => {
      runs.three! += 1;
      if (outage.on) throw new Error('upstream 503');
      return `${String(request.input)}-3 (${String(ctx.get('fetched'))}, ${String(ctx.get('priced'))})`;
    })
    .addNode('four', (_ctx, request) => {
      runs.four! += 1;
      return `${String(request.input)}-4`;
    })
    .start('one')
    .addEdge('one', 'two')
    .addEdge('two', 'three')
    .addEdge('three', 'four')
    .addEdge('four', END);
}

function flow({ runs, outage }: ReturnType<typeof counters>) {
  return Workflow.define<string>('flow')
    .step(step('one', (_c, s: string) => ((runs.one! += 1), `${s}-1`), { updateContext: (ctx, out) => ctx.mutate().with('fetched', out).build() }))
    .then(step('two', (_c, s: string) => ((runs.two! += 1), `${s}-2`)))
    .then(
      step('three', (ctx, s: string) => {
        runs.three! += 1;
        if (outage.on) throw new Error('upstream 503');
        return `${s}-3 (${String(ctx.get('fetched' as never))})`;
      }),
    )
    .then(step('four', (_c, s: string) => ((runs.four! += 1), `${s}-4`)));
}

const targets: Array<[string, () => StoreTarget]> = [
  ['MemoryRunStore', memoryTarget],
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
];
const storeOf = storesClosedAfterEach();

describe.each(targets)('checkpointingStepRunner with step records in %s', (_name, make) => {
  it('a graph whose third step failed once: after resetFailedSteps, the same run id reuses steps one and two and ends as an uninterrupted run', async () => {
    const store = storeOf(make);
    const reference = counters();
    reference.outage.on = false;
    const uninterrupted = await pipeline(reference).run('order', { runId: 'ref', stepRunner: localStepRunner() });

    const c = counters();
    const runner = checkpointingStepRunner(store);
    const first = await pipeline(c).run('order', { runId: 'order-42', stepRunner: runner });
    expect(first.status).toBe('failed');
    expect(c.runs).toEqual({ one: 1, two: 1, three: 1, four: 0 });
    const manager = new CheckpointManager(store);
    const state = await manager.getRunState('order-42');
    expect(state.steps.map((s) => [s.key, s.status])).toEqual([['1:one', 'COMPLETED'], ['2:two', 'COMPLETED'], ['3:three', 'FAILED']]);
    expect(state.steps[0]!.output).toEqual({ outputText: 'order-1' });
    expect(state.steps[2]!.error?.message).toContain('upstream 503');

    // Not retried by itself: the same run id fails again at the failed step, without executing it.
    const again = await pipeline(c).run('order', { runId: 'order-42', stepRunner: checkpointingStepRunner(store) });
    expect(again.status).toBe('failed');
    expect(again.error).toBeInstanceOf(StepFailedError);
    expect(c.runs).toEqual({ one: 1, two: 1, three: 1, four: 0 });

    c.outage.on = false;
    expect(await manager.resetFailedSteps('order-42')).toEqual(['3:three']);
    const retried = await pipeline(c).run('order', { runId: 'order-42', stepRunner: checkpointingStepRunner(store) });
    expect(c.runs).toEqual({ one: 1, two: 1, three: 2, four: 1 });
    expect(retried.status).toBe('completed');
    expect(retried.outputText).toBe(uninterrupted.outputText);
    expect(retried.outputText).toBe('order-1-2-3 (order:fetched, 42)-4');
    expect(retried.path).toEqual(uninterrupted.path);
    expect(retried.state.get('priced')).toBe(42);
    const after = await manager.getRunState('order-42');
    expect(after.counts).toEqual({ RUNNING: 0, COMPLETED: 4, FAILED: 0 });
    expect(after.steps.find((s) => s.key === '3:three')?.attempts).toBe(1);
  });

  it('one runner kept across resetFailedSteps (as the README writes it) runs the reset step again instead of failing it from memory', async () => {
    const store = storeOf(make);
    const c = counters();
    const runner = checkpointingStepRunner(store);
    const first = await pipeline(c).run('order', { runId: 'order-43', stepRunner: runner });
    expect(first.status).toBe('failed');
    c.outage.on = false;
    expect(await new CheckpointManager(store).resetFailedSteps('order-43')).toEqual(['3:three']);
    const retried = await pipeline(c).run('order', { runId: 'order-43', stepRunner: runner });
    expect(retried.error?.message).toBeUndefined();
    expect(retried.status).toBe('completed');
    expect(retried.outputText).toBe('order-1-2-3 (order:fetched, 42)-4');
    expect(c.runs).toEqual({ one: 1, two: 1, three: 2, four: 1 });
    const after = await new CheckpointManager(store).getRunState('order-43');
    expect(after.steps.map((s) => `${s.key} ${s.status} ${s.attempts}`)).toEqual(['1:one COMPLETED 1', '2:two COMPLETED 1', '3:three COMPLETED 1', '4:four COMPLETED 1']);
    // Not reset, the same runner still refuses the failed step without executing it.
    c.outage.on = true;
    const other = await pipeline(c).run('order', { runId: 'order-44', stepRunner: runner });
    expect(other.status).toBe('failed');
    const refused = await pipeline(c).run('order', { runId: 'order-44', stepRunner: runner });
    expect(refused.error).toBeInstanceOf(StepFailedError);
    expect(c.runs.three).toBe(3);
  });

  it('a step reused by the runner that recorded it gives what was recorded, not the object a caller changed since', async () => {
    const store = storeOf(make);
    const graph = new StateGraph({ name: 'kept' })
      .addNode('one', (ctx) => {
        ctx.put('found', { n: 1 });
        return { outputText: 'a', data: { n: 1 } } as never;
      })
      .start('one');
    const runner = checkpointingStepRunner(store);
    const first = await graph.run('x', { runId: 'kept-1', stepRunner: runner });
    (first.result as unknown as { data: { n: number } }).data.n = 99;
    const second = await graph.run('x', { runId: 'kept-1', stepRunner: runner });
    expect(second.result).toEqual({ outputText: 'a', data: { n: 1 } });
    expect(second.state.get('found')).toEqual({ n: 1 });
    // Nor what the caller of a run that reused it changed.
    (second.result as unknown as { data: { n: number } }).data.n = 77;
    const third = await graph.run('x', { runId: 'kept-1', stepRunner: runner });
    expect(third.result).toEqual({ outputText: 'a', data: { n: 1 } });
    expect((await new CheckpointManager(store).getRunState('kept-1')).steps[0]!.output).toEqual({ outputText: 'a', data: { n: 1 } });
  });

  it('resetFailedSteps on a run id with no records, and twice in a row, resets nothing and keeps what completed', async () => {
    const store = storeOf(make);
    const manager = new CheckpointManager(store);
    expect(await manager.resetFailedSteps('never-ran')).toEqual([]);
    await pipeline(counters()).run('order', { runId: 'twice-1', stepRunner: checkpointingStepRunner(store) });
    expect(await manager.resetFailedSteps('twice-1')).toEqual(['3:three']);
    expect(await manager.resetFailedSteps('twice-1')).toEqual([]);
    expect((await manager.getRunState('twice-1')).counts).toEqual({ RUNNING: 0, COMPLETED: 2, FAILED: 0 });
  });

  it('a typed workflow: the same, with the context a reused step wrote restored', async () => {
    const store = storeOf(make);
    const reference = counters();
    reference.outage.on = false;
    const uninterrupted = await flow(reference).run('order');

    const c = counters();
    const first = await flow(c).run('order', { runId: 'wf-7', stepRunner: checkpointingStepRunner(store) });
    expect(first.status).toBe('failed');
    c.outage.on = false;
    await new CheckpointManager(store).resetFailedSteps('wf-7');
    const retried = await flow(c).run('order', { runId: 'wf-7', stepRunner: checkpointingStepRunner(store) });
    expect(c.runs).toEqual({ one: 1, two: 1, three: 2, four: 1 });
    expect(retried.status).toBe('completed');
    expect(retried.output).toBe(uninterrupted.output);
    expect(retried.output).toBe('order-1-2-3 (order-1)-4');
  });
});

describe('step runners', () => {
  it('localStepRunner runs every step as a run without a runner does', async () => {
    const a = counters();
    a.outage.on = false;
    const b = counters();
    b.outage.on = false;
    const plain = await pipeline(a).run('x');
    const local = await pipeline(b).run('x', { stepRunner: localStepRunner() });
    expect(local.outputText).toBe(plain.outputText);
    expect(b.runs).toEqual(a.runs);
  });

  it('writes each step record with the fields and key order of the spread it was once built by', async () => {
    // The records as the runner hands them to the store, before any encoding: their key order is
    // the order of the stored JSON, which `switchboard steps --json` prints.
    const written: StepRecord[] = [];
    const store = new MemoryRunStore();
    const put = store.putStepRecord.bind(store);
    store.putStepRecord = async (record) => {
      written.push(record);
      await put(record);
    };
    let clock = 1_000;
    const c = counters();
    const first = await pipeline(c).run('order', { runId: 'shape-1', stepRunner: checkpointingStepRunner(store, { now: () => (clock += 7) }) });
    expect(first.status).toBe('failed');
    c.outage.on = false;
    await new CheckpointManager(store).resetFailedSteps('shape-1');
    await pipeline(c).run('order', { runId: 'shape-1', stepRunner: checkpointingStepRunner(store, { now: () => (clock += 7) }) });
    expect(written.map((r) => `${r.key} ${r.status} ${r.attempts}`)).toEqual([
      '1:one RUNNING 1', '1:one COMPLETED 1', '2:two RUNNING 1', '2:two COMPLETED 1', '3:three RUNNING 1', '3:three FAILED 1',
      '3:three RUNNING 1', '3:three COMPLETED 1', '4:four RUNNING 1', '4:four COMPLETED 1',
    ]);
    for (const record of written) {
      const base = { runId: record.runId, graph: 'pipeline', key: record.key, nodeId: record.nodeId, step: record.step, attempts: record.attempts };
      const spread = { ...base, status: record.status, output: record.output, writes: record.writes, error: record.error, updatedAt: record.updatedAt };
      expect(Object.keys(record)).toEqual(Object.keys(spread));
      expect(JSON.stringify(record)).toBe(JSON.stringify(spread));
    }
    expect(written.map((r) => r.updatedAt)).toEqual(written.map((_r, i) => 1_007 + 7 * i));
    expect(written[1]!.writes).toEqual({ set: { fetched: 'order:fetched' }, deleted: [] });
    expect(written[5]!.error?.message).toContain('upstream 503');
  });

  it('refuses to take another graph\'s step records as its own, before running or writing anything', async () => {
    const store = new MemoryRunStore();
    const c = counters();
    c.outage.on = false;
    const first = await pipeline(c).run('order', { runId: 'order-7', stepRunner: checkpointingStepRunner(store) });
    expect(first.status).toBe('completed');
    const before = await new CheckpointManager(store).getRunState('order-7');
    expect(before.steps.map((s) => s.graph)).toEqual(['pipeline', 'pipeline', 'pipeline', 'pipeline']);
    // Another graph with a node of the same id at the same step: without the graph in the records it
    // would return the pipeline's output for its own first step without running it.
    let ran = 0;
    const other = new StateGraph({ name: 'refunds' })
      .addNode('one', () => {
        ran += 1;
        return 'refund';
      })
      .start('one');
    for (const runner of [checkpointingStepRunner(store), checkpointingStepRunner(store)]) {
      const run = await other.run('order', { runId: 'order-7', stepRunner: runner });
      expect(run.status).toBe('failed');
      expect(run.error?.code).toBe('step_records_conflict');
      expect(run.error?.message).toContain('graph "pipeline"');
      expect(run.error?.message).toContain('this run is of graph "refunds"');
      expect(run.outputText).not.toBe('order-1');
    }
    expect(ran).toBe(0);
    expect(await new CheckpointManager(store).getRunState('order-7')).toEqual(before);
    // One runner for both graphs: the records it already holds for the id are the pipeline's too.
    const shared = checkpointingStepRunner(store);
    expect((await pipeline(counters()).run('order', { runId: 'order-8', stepRunner: shared })).status).toBe('failed');
    const again = await other.run('order', { runId: 'order-8', stepRunner: shared });
    expect(again.error?.code).toBe('step_records_conflict');
    expect(ran).toBe(0);
    // Both graphs' first steps under one new id at once, through one runner: one of them is refused.
    const both = await Promise.all([pipeline(counters()).run('order', { runId: 'order-9', stepRunner: shared }), other.run('order', { runId: 'order-9', stepRunner: shared })]);
    expect(both.map((r) => r.error?.code).filter((code) => code === 'step_records_conflict')).toHaveLength(1);
    // Records written before the graph was kept (no graph field) are still reused by a run of any name.
    const legacy = new MemoryRunStore();
    await legacy.putStepRecord({ runId: 'old-1', key: '1:one', nodeId: 'one', step: 1, attempts: 1, status: 'COMPLETED', output: { outputText: 'kept' }, writes: null, error: null, updatedAt: 1 });
    const reused = await other.run('x', { runId: 'old-1', stepRunner: checkpointingStepRunner(legacy) });
    expect(reused.outputText).toBe('kept');
    expect(ran).toBe(0);
  });

  it('keeps the records of its last thousand runs in memory, not of every run it ever ran', async () => {
    const store = new MemoryRunStore();
    const reads: string[] = [];
    const list = store.listStepRecords.bind(store);
    store.listStepRecords = async (runId) => {
      reads.push(runId);
      return list(runId);
    };
    const graph = new StateGraph({ name: 'many' }).addNode('one', (_ctx, request) => `${String(request.input)}!`).start('one');
    const runner = checkpointingStepRunner(store);
    await graph.run('a', { runId: 'first', stepRunner: runner });
    // Run again soon, it is answered from memory (after one read of what it recorded itself, see above).
    for (let i = 0; i < 2; i++) expect((await graph.run('a', { runId: 'first', stepRunner: runner })).outputText).toBe('a!');
    expect(reads.filter((id) => id === 'first')).toHaveLength(2);
    for (let i = 0; i < 1_000; i++) await graph.run(`r${i}`, { runId: `other-${i}`, stepRunner: runner });
    // A thousand runs later it was forgotten: read again from the store, and reused as recorded.
    const again = await graph.run('a', { runId: 'first', stepRunner: runner });
    expect(again.outputText).toBe('a!');
    expect(reads.filter((id) => id === 'first')).toHaveLength(3);
  });

  it('refuses a runner that is not one, a store that cannot keep step records, and a run id that names no run', async () => {
    const c = counters();
    await expect(pipeline(c).run('x', { stepRunner: {} as never })).rejects.toThrow(/stepRunner must be a StepRunner/);
    expect(() => checkpointingStepRunner({} as RunStore)).toThrow(/cannot keep step records/);
    // A blank or missing run id names no run: said so, not answered with an empty state.
    const manager = new CheckpointManager(new MemoryRunStore());
    for (const runId of ['', '  ', undefined, 42]) {
      await expect(manager.getRunState(runId as never)).rejects.toMatchObject({ code: 'graph_definition', message: expect.stringContaining('getRunState(runId): runId must be the non-blank id of a run') });
      await expect(manager.resetFailedSteps(runId as never)).rejects.toMatchObject({ code: 'graph_definition', message: expect.stringContaining('resetFailedSteps(runId)') });
    }
    expect((await manager.getRunState('never-ran')).steps).toEqual([]);
  });
});
