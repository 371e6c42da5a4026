import { describe, expect, it } from 'vitest';
import { HumanGate, Workflow, step } from 'switchboard';
import { memoryTarget, postgresTarget, sqliteTarget, useStoreTarget, type StoreTarget } from '../persistence/storeTargets.js';

/** A draft a person approves: `{ decision: 'PASS' }` sends it. */
const approval = () =>
  Workflow.define<string>('approve-draft')
    .step(step('draft', (_c, s: string) => `${s}!`))
    .gate(new HumanGate({}))
    .onPass(step('send', (_c, s: string) => `sent ${s}`))
    .onFail(step('revise', (_c, s: string) => `${s} revised`))
    .end();

/** A run that fails before any gate. */
const broken = () =>
  Workflow.define<string>('approve-broken')
    .step(step('draft', (): string => {
      throw new Error('no draft');
    }))
    .gate(new HumanGate({}))
    .onPass(step('send', (_c, s: string) => `sent ${s}`))
    .end();

const targets: Array<[string, () => StoreTarget]> = [
  ['memory', memoryTarget],
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
];

describe.each(targets)('a gate reply to a workflow run that is no longer waiting, stored in %s', (_name, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('a second { decision } reply is refused as run_finished, not as a reply of the wrong shape', async () => {
    const { store } = target();
    const wf = approval();
    const waiting = await wf.run('q', { store });
    expect(waiting.status).toBe('waiting');
    const done = await wf.resume(waiting.runId, { decision: 'PASS' }, { store });
    expect(done).toMatchObject({ status: 'completed', output: 'sent q!' });
    await expect(wf.resume(waiting.runId, { decision: 'PASS' }, { store })).rejects.toMatchObject({ name: 'RunStateError', code: 'run_finished' });
    await expect(wf.resume(waiting.runId, { decision: 'FAIL', text: 'too late' }, { store })).rejects.toMatchObject({ code: 'run_finished' });
    expect((await store.getRun(waiting.runId))!.status).toBe('completed');
  });

  it('a { decision } reply to a run that failed before its gate is refused as run_finished', async () => {
    const { store } = target();
    const wf = broken();
    const failed = await wf.run('q', { store });
    expect(failed.status).toBe('failed');
    await expect(wf.resume(failed.runId, { decision: 'PASS' }, { store })).rejects.toMatchObject({ code: 'run_finished', message: expect.stringContaining('already finished (failed)') });
  });
});

describe('a gate reply to a workflow run that waits for nothing', () => {
  it('is refused as run_not_waiting, whatever its shape', async () => {
    const target = sqliteTarget();
    try {
      const wf = approval();
      const waiting = await wf.run('q', { store: target.store });
      // What a crashed owner leaves behind: the run is interrupted, not waiting.
      const record = (await target.store.getRun(waiting.runId))!;
      expect(await target.store.updateRun(waiting.runId, record.version, { status: 'interrupted' })).not.toBeNull();
      await expect(wf.resume(waiting.runId, { decision: 'PASS' }, { store: target.store })).rejects.toMatchObject({ code: 'run_not_waiting' });
    } finally {
      await target.close();
    }
  });
});
