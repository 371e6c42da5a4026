import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AgentContext, HumanGate, RunManager, SqliteRunStore, Workflow, recoverRuns, step, type RunStore, type WorkflowEvent, type WorkflowRun } from 'switchboard';

function reviewFlow(timeoutMs: number, now?: () => number) {
  return Workflow.define<string>('timed-review')
    .step(step('draft', (_c, s: string) => `draft of ${s}`))
    .gate(new HumanGate({ timeoutMs, ...(now ? { now } : {}) }))
    .onPass(step('publish', (_c, s: string) => `published ${s}`))
    .onTimeout(step('expire', (ctx, s: string) => `expired ${s}: ${String(ctx.get(AgentContext.JUDGE_VERDICT)?.reasons[0] ?? '')}`))
    .end();
}

/** Resolves with the first `run.completed` event whose run has finished. */
function finished(): { onEvent: (e: WorkflowEvent) => void; done: Promise<WorkflowRun> } {
  let resolve!: (run: WorkflowRun) => void;
  const done = new Promise<WorkflowRun>((r) => (resolve = r));
  return {
    onEvent: (e) => {
      const run = e.type === 'run.completed' ? (e as { run: WorkflowRun }).run : null;
      if (run !== null && run.status !== 'waiting') resolve(run);
    },
    done,
  };
}

/** Reads the stored run until its status is no longer `waiting` (the test's own timeout ends a hang). */
async function settled(store: RunStore, runId: string) {
  for (;;) {
    const record = (await store.getRun(runId))!;
    if (record.status !== 'waiting' && record.status !== 'running') return record;
    await sleep(10);
  }
}

describe('HumanGate deadlines without a reply', () => {
  it('in memory: a run past its deadline takes onTimeout by itself, reported to the listeners of the run that waited', async () => {
    const watch = finished();
    const run = await reviewFlow(0).run('the plan', { onEvent: watch.onEvent });
    expect(run.status).toBe('waiting');
    const ended = await watch.done;
    expect(ended.status).toBe('completed');
    expect(ended.outputText).toMatch(/^expired draft of the plan: no decision before the deadline \(\d{4}-/);
    // The wait is over: a late reply is refused and changes nothing.
    await expect(reviewFlow(0).resume(run.runId, { decision: 'PASS' })).rejects.toMatchObject({ name: 'RunStateError' });
  }, 30_000);

  it('in memory: a reply before the deadline wins, and the run is not touched afterwards', async () => {
    const wf = reviewFlow(60_000);
    const run = await wf.run('x');
    const done = await wf.resume(run.runId, { decision: 'PASS', text: 'ok' });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('published draft of x');
  });

  it('stored: after the process that waited is gone, recoverRuns in the next one applies the passed deadline without a reply', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-wf-deadline-')), 'runs.db');
    let clock = 1_000;
    const first = new SqliteRunStore({ file });
    const run = await reviewFlow(60_000, () => clock).run('the plan', { store: first });
    expect(run.status).toBe('waiting');
    await first.close();

    // Another process (a new connection, the workflow built again) after the deadline.
    clock += 60_001;
    const second = new SqliteRunStore({ file });
    expect((await second.getRun(run.runId))!.status).toBe('waiting');
    await recoverRuns({ store: second, graphs: [reviewFlow(60_000, () => clock)] });
    const record = await settled(second, run.runId);
    expect(record.status).toBe('completed');
    expect(record.outputText).toBe(`expired draft of the plan: no decision before the deadline (${new Date(61_000).toISOString()})`);
    await second.close();
  }, 30_000);

  it('stored: recoverRuns before the deadline leaves the run waiting for its reply', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-wf-deadline-')), 'runs.db');
    const clock = 1_000;
    const store = new SqliteRunStore({ file });
    const run = await reviewFlow(60_000, () => clock).run('x', { store });
    await recoverRuns({ store, graphs: [reviewFlow(60_000, () => clock)] });
    await sleep(50);
    expect((await store.getRun(run.runId))!.status).toBe('waiting');
    const done = await reviewFlow(60_000, () => clock).resume(run.runId, { decision: 'PASS' }, { store });
    expect(done.output).toBe('published draft of x');
    await store.close();
  }, 30_000);

  it('stream(): a streamed run that waits past its deadline takes onTimeout by itself (the workflow and its graph view)', async () => {
    for (const streamOf of [(wf: ReturnType<typeof reviewFlow>, store: RunStore) => wf.stream('s', { store }), (wf: ReturnType<typeof reviewFlow>, store: RunStore) => wf.asGraph().stream('s', { store })]) {
      const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-wf-deadline-')), 'runs.db') });
      let last: WorkflowRun | null = null;
      for await (const e of streamOf(reviewFlow(0), store)) if (e.type === 'run.completed') last = (e as { run: WorkflowRun }).run;
      expect(last?.status).toBe('waiting');
      const record = await settled(store, last!.runId);
      expect(record.status).toBe('completed');
      expect(record.outputText).toMatch(/^expired draft of s: no decision before the deadline/);
      await store.close();
    }
  }, 30_000);

  it('through a RunManager (the workbench and CLI): a started run times out by itself, and so does a wait after a resume', async () => {
    const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-wf-deadline-')), 'runs.db') });
    const wf = Workflow.define<string>('timed-loop')
      .step(step('draft', (_c, s: string) => s))
      .gate(new HumanGate({ timeoutMs: 0 }))
      .onPass(step('publish', (_c, s: string) => `published ${s}`))
      .onTimeout(step('expire', (_c, s: string) => `expired ${s}`))
      .end();
    const runs = new RunManager({ store, graphs: [wf] });
    const run = await runs.start('timed-loop', 'a');
    expect(run.status).toBe('waiting');
    const record = await settled(store, run.runId);
    expect(record).toMatchObject({ status: 'completed', outputText: 'expired a' });
    await store.close();
  }, 30_000);
});

/** outer → middle → approval, whose HumanGate has the deadline; `ship` reads what the innermost workflow decided. */
function nestedFlow(timeoutMs: number, now?: () => number) {
  const approval = Workflow.define<string>('approval')
    .step(step('prepare', (_c, s: string) => `prepared ${s}`))
    .gate(new HumanGate({ name: 'sign-off', timeoutMs, ...(now ? { now } : {}) }))
    .onPass(step('sign', (_c, s: string) => `signed ${s}`))
    .onTimeout(step('expire', (ctx, s: string) => `expired ${s}: ${String(ctx.get(AgentContext.JUDGE_VERDICT)?.reasons[0] ?? '')}`))
    .end()
    .build();
  const middle = Workflow.define<string>('middle').step(step('m1', (_c, s: string) => s)).then(approval).build();
  return Workflow.define<string>('outer-timed')
    .step(step('intake', (_c, s: string) => s.trim()))
    .then(middle)
    .then(step('ship', (_c, s: string) => `shipped ${s}`));
}

describe('HumanGate deadlines inside a sub-workflow (two deep)', () => {
  it('in memory: the run takes the inner onTimeout by itself, without a reply', async () => {
    const watch = finished();
    const run = await nestedFlow(0).run(' plan ', { onEvent: watch.onEvent });
    expect(run.status).toBe('waiting');
    expect(run.waiting?.nodeId).toBe('middle:waits');
    const ended = await watch.done;
    expect(ended.status).toBe('completed');
    expect(ended.outputText).toMatch(/^shipped expired prepared plan: no decision before the deadline \(\d{4}-/);
    expect(ended.path).toEqual(['intake', 'middle', 'ship']);
  }, 30_000);

  it('in memory: a reply before the deadline wins; the timer finds the run moved on and does nothing', async () => {
    let clock = 1_000;
    const wf = nestedFlow(50, () => clock);
    const run = await wf.run('x');
    const done = await wf.resume(run.runId, { decision: 'PASS' });
    expect(done.output).toBe('shipped signed prepared x');
    clock += 1_000;
    await sleep(150);
    await expect(wf.resume(run.runId, { decision: 'PASS' })).rejects.toMatchObject({ name: 'RunStateError' });
  }, 30_000);

  it('stored: fires on schedule in the process that waited (waiting before the deadline, timed out after it)', async () => {
    const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-wf-deadline-')), 'runs.db') });
    const started = Date.now();
    const run = await nestedFlow(300).run('soon', { store });
    expect(run.status).toBe('waiting');
    const early = (await store.getRun(run.runId))!;
    if (Date.now() - started < 300) expect(early.status).toBe('waiting');
    const record = await settled(store, run.runId);
    expect(record.status).toBe('completed');
    expect(record.outputText).toMatch(/^shipped expired prepared soon: no decision before the deadline/);
    await store.close();
  }, 30_000);

  it('stored: after a restart, recoverRuns re-arms the inner deadline and applies it without a reply', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-wf-deadline-')), 'runs.db');
    let clock = 5_000;
    const first = new SqliteRunStore({ file });
    const run = await nestedFlow(60_000, () => clock).run('later', { store: first });
    expect(run.status).toBe('waiting');
    await first.close();

    clock += 60_001;
    const second = new SqliteRunStore({ file });
    await recoverRuns({ store: second, graphs: [nestedFlow(60_000, () => clock)] });
    const record = await settled(second, run.runId);
    expect(record.status).toBe('completed');
    expect(record.outputText).toBe(`shipped expired prepared later: no decision before the deadline (${new Date(65_000).toISOString()})`);
    await second.close();
  }, 30_000);
});
