import { createActor, toPromise } from 'xstate';
import { describe, expect, it } from 'vitest';
import { Steps, Workflow, WorkflowAbort, resumeRun, step, type RunStore, type WorkflowMachineOutput } from 'switchboard';
import { memoryTarget, postgresTarget, sqliteTarget, type StoreTarget } from '../persistence/storeTargets.js';

/** A step that gives up with a degraded but meaningful answer. */
const abortFlow = () =>
  Workflow.define<string>('gives-up')
    .step(step('fetch', (_c, s: string) => s))
    .then(
      step('report', (_c, s: string): string => {
        throw new WorkflowAbort({ partial: s, reason: 'report service down' });
      }),
    )
    .then(step('never', () => 'not reached'));

const terminateFlow = (status: 'completed' | 'aborted' | 'failed') =>
  Workflow.define<string>(`ends-${status}`)
    .step(step('first', (_c, s: string) => `${s}!`))
    .then(Steps.terminate(status, `stopped ${status}`))
    .then(step('never', () => 'not reached'));

const targets: Array<[string, () => StoreTarget]> = [
  ['memory', memoryTarget],
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
];

describe.each(targets)('a workflow ended early, stored in %s', (_name, makeTarget) => {
  const withStore = async (test: (store: RunStore) => Promise<void>) => {
    const target = makeTarget();
    try {
      await test(target.store);
    } finally {
      await target.close();
    }
  };

  it('WorkflowAbort is stored and read back as aborted, with its answer, and cannot be resumed', () =>
    withStore(async (store) => {
      const run = await abortFlow().run('q3', { store });
      expect(run.status).toBe('aborted');
      expect(run.output).toEqual({ partial: 'q3', reason: 'report service down' });
      expect(run.path).toEqual(['fetch', 'report']);
      const record = (await store.getRun(run.runId))!;
      expect(record.status).toBe('aborted');
      expect(record.outputText).toBe(JSON.stringify({ partial: 'q3', reason: 'report service down' }));
      expect(record.error).toBeNull();
      expect((await store.listRuns({ status: 'aborted' })).map((r) => r.runId)).toEqual([run.runId]);
      expect((await store.listRuns({ status: 'completed' })).map((r) => r.runId)).not.toContain(run.runId);
      // A finished run: resuming it is refused, and the record stays as it was.
      await expect(resumeRun(abortFlow().toMachine(), run.runId, undefined, { store })).rejects.toMatchObject({ code: 'run_finished' });
      expect((await store.getRun(run.runId))!.status).toBe('aborted');
    }));

  it.each(['completed', 'aborted', 'failed'] as const)('Steps.terminate(%s) is stored with that status, its message and (failed) its error', (status) =>
    withStore(async (store) => {
      const run = await terminateFlow(status).run('hi', { store });
      expect(run.status).toBe(status);
      expect(run.output).toBe(`stopped ${status}`);
      expect(run.path).toEqual(['first', `terminate-${status}`]);
      const record = (await store.getRun(run.runId))!;
      expect(record.status).toBe(status);
      expect(record.outputText).toBe(`stopped ${status}`);
      if (status === 'failed') {
        expect(run.error).toMatchObject({ code: 'workflow_aborted', message: 'stopped failed' });
        expect(record.error).toMatchObject({ code: 'workflow_aborted', message: 'stopped failed' });
      } else {
        expect(run.error).toBeUndefined();
        expect(record.error).toBeNull();
      }
    }));
});

describe('a workflow ended early, under plain XState and in a stream', () => {
  it('the machine resolves aborted with the abort value; run.completed carries aborted', async () => {
    const actor = createActor(abortFlow().toMachine(), { input: { input: 'q4' } as never });
    actor.start();
    const out = (await toPromise(actor)) as unknown as WorkflowMachineOutput;
    expect(out.status).toBe('aborted');
    expect(out.output).toEqual({ partial: 'q4', reason: 'report service down' });
    const events = [];
    for await (const e of abortFlow().stream('q5')) events.push(e);
    const last = events.at(-1)!;
    expect(last.type).toBe('run.completed');
    expect((last as { run: { status: string } }).run.status).toBe('aborted');
  });
});
