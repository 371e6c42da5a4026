import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HumanGate, MemoryRunStore, RunManager, SqliteRunStore, Workflow, resumeRun, step, type RunStore, type WorkflowEvent, type WorkflowRun } from 'switchboard';

/** Two steps both named `tidy` (ids `tidy` and `tidy#2`), a HumanGate named `check` and an onPass step also named `check` (id `check#2`). */
function reviewFlow() {
  return Workflow.define<string>('named-path')
    .step(step('tidy', (_c, s: string) => s.trim()))
    .then(step('tidy', (_c, s: string) => s.toLowerCase()))
    .gate(new HumanGate({ name: 'check' }))
    .onPass(step('check', (_c, s: string) => `checked ${s}`))
    .end();
}

const stores: Array<[string, () => RunStore]> = [
  ['memory', () => new MemoryRunStore()],
  ['SQLite', () => new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-wf-path-')), 'runs.db') })],
];

describe('a workflow run names its path by steps while it waits and at the end', () => {
  it('run() and resume(): step names only, a repeated name once per execution, a step named like a gate kept', async () => {
    const run = await reviewFlow().run(' A ');
    expect(run.status).toBe('waiting');
    expect(run.path).toEqual(['tidy', 'tidy']);
    const done = await reviewFlow().resume(run.runId, { decision: 'PASS' });
    expect(done.output).toBe('checked a');
    expect(done.path).toEqual(['tidy', 'tidy', 'check']);
  });

  for (const [name, open] of stores) {
    it(`through the graph view (RunManager, resumeRun, run.completed) on ${name}: the same step names while waiting and at the end`, async () => {
      const store = open();
      const events: WorkflowEvent[] = [];
      const onEvent = (e: WorkflowEvent) => events.push(e);
      const runs = new RunManager({ store, graphs: [reviewFlow()] });
      const run = await runs.start('named-path', ' B ', { onEvent });
      expect(run.status).toBe('waiting');
      expect(run.path).toEqual(['tidy', 'tidy']);
      const done = await runs.resume(run.runId, { reply: 'PASS' }, { onEvent });
      expect(done.status).toBe('completed');
      expect(done.path).toEqual(['tidy', 'tidy', 'check']);
      const completed = events.filter((e) => e.type === 'run.completed').map((e) => (e as { run: WorkflowRun }).run.path);
      expect(completed).toEqual([['tidy', 'tidy'], ['tidy', 'tidy', 'check']]);

      // resumeRun on the graph view: the same vocabulary.
      const again = await reviewFlow().asGraph().run(' C ', { store });
      expect(again.path).toEqual(['tidy', 'tidy']);
      const resumed = await resumeRun(reviewFlow().asGraph(), again.runId, { reply: 'PASS: fine' }, { store });
      expect(resumed.path).toEqual(['tidy', 'tidy', 'check']);
      await store.close();
    });
  }
});
