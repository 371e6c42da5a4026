import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentContext, HumanGate, SqliteRunStore, Workflow, step } from 'switchboard';

function reviewFlow(now: () => number) {
  return Workflow.define<string>('human-review')
    .step(step('draft', (_c, s: string) => `draft of ${s}`))
    .gate(new HumanGate({ timeoutMs: 60_000, now }))
    .onPass(step('publish', (_c, s: string) => `published ${s}`))
    .onTimeout(step('expire', (_c, s: string) => `expired ${s}`))
    .end();
}

describe('durable workflows', () => {
  it('waits for a person in a stored run and is resumed from another store connection', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-wf-')), 'runs.db');
    let clock = 1_000;
    const first = new SqliteRunStore({ file });
    const run = await reviewFlow(() => clock).run('the plan', { store: first });
    expect(run.status).toBe('waiting');
    expect(run.path).toEqual(['draft']);
    await first.close();

    // A new connection and a newly built workflow stand for another process.
    const second = new SqliteRunStore({ file });
    clock += 30_000;
    const done = await reviewFlow(() => clock).resume(run.runId, { decision: 'PASS', text: 'ship it' }, { store: second });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('published draft of the plan');
    expect(done.path).toEqual(['draft', 'publish']);
    expect(done.context.get(AgentContext.JUDGE_VERDICT)).toEqual({ decision: 'PASS', score: null, reasons: ['ship it'] });
    await second.close();
  });

  it('takes onTimeout when the reply comes after the stored deadline, across a restart', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-wf-')), 'runs.db');
    let clock = 5_000;
    const first = new SqliteRunStore({ file });
    const run = await reviewFlow(() => clock).run('the plan', { store: first });
    expect(run.status).toBe('waiting');
    await first.close();

    const second = new SqliteRunStore({ file });
    clock += 60_001;
    const late = await reviewFlow(() => clock).resume(run.runId, { decision: 'PASS' }, { store: second });
    expect(late.status).toBe('completed');
    expect(late.output).toBe('expired draft of the plan');
    expect(late.path).toEqual(['draft', 'expire']);
    expect(late.context.get(AgentContext.JUDGE_VERDICT)?.decision).toBe('TIMEOUT');
    await second.close();
  });

  it('checkpoints a stored run with a loop and a parallel fan-out to the same result as in memory', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-wf-')), 'runs.db');
    const store = new SqliteRunStore({ file });
    const wf = Workflow.define<number>('stored')
      .parallel(step('a', (_c, n: number) => n, { updateContext: (ctx) => ctx.mutate().with('a', true).build() }), step('b', (_c, n: number) => n, { updateContext: (ctx) => ctx.mutate().with('b', true).build() }))
      .repeatUntil((_c, n) => n >= 3)
      .step(step('inc', (_c, n: number) => n + 1))
      .end();
    const memory = await wf.run(0);
    const stored = await wf.run(0, { store });
    expect(stored.status).toBe('completed');
    expect(stored.output).toBe(memory.output);
    expect(stored.path).toEqual(memory.path);
    const record = await store.getRun(stored.runId);
    expect(record?.status).toBe('completed');
    await store.close();
  });
});
