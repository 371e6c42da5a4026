import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActor, toPromise, waitFor } from 'xstate';
import { HumanGate, RunManager, SqliteRunStore, Workflow, step, type WorkflowEvent, type WorkflowMachineOutput } from 'switchboard';

/** outer → middle → approval (a HumanGate): the innermost writes `prepared`, which the outer's last step reads. */
function outerFlow() {
  const approval = Workflow.define<string>('approval')
    .step(step('prepare', (_c, s: string) => `prepared ${s}`, { updateContext: (ctx) => ctx.mutate().with('prepared', true).build() }))
    .gate(new HumanGate({ name: 'sign-off' }))
    .onPass(step('sign', (_c, s: string) => `signed ${s}`))
    .onFail(step('rework', (_c, s: string) => `reworked ${s}`))
    .end()
    .build();
  const middle = Workflow.define<string>('middle').step(step('m1', (_c, s: string) => s)).then(approval).build();
  return Workflow.define<string>('outer')
    .step(step('intake', (_c, s: string) => s.trim()))
    .then(middle)
    .then(step('ship', (ctx, s: string) => `shipped ${s} (prepared: ${String(ctx.get('prepared'))})`));
}

describe('a sub-workflow that waits for a person', () => {
  it('makes its parent wait (three deep) with the innermost reason, and continues it with the reply', async () => {
    const run = await outerFlow().run(' plan ');
    expect(run.status).toBe('waiting');
    expect(run.waiting?.nodeId).toBe('middle:waits');
    expect(run.waiting?.reason).toBe('sub-workflow "middle" waits: sub-workflow "approval" waits: gate "sign-off" waits for a person\'s decision: reply PASS or FAIL ("FAIL: why")');
    expect(run.path).toEqual(['intake', 'middle']);

    // A FAIL reaches the innermost gate: it reworks and asks again, so the whole chain waits again.
    const again = await outerFlow().resume(run.runId, { decision: 'FAIL', text: 'redo' });
    expect(again.status).toBe('waiting');
    expect(again.waiting?.nodeId).toBe('middle:waits');
    const done = await outerFlow().resume(run.runId, { decision: 'PASS', text: 'fine' });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('shipped signed reworked prepared plan (prepared: true)');
    expect(done.path).toEqual(['intake', 'middle', 'ship']);
    // The held child and the reply are gone from the context once the child finished.
    expect(done.context.keys().filter((k) => k.startsWith('workflow.sub:'))).toEqual([]);
  });

  it('waits and continues the same way under plain XState (createActor, a human.reply event, toPromise)', async () => {
    const actor = createActor(outerFlow().toMachine(), { input: { input: 'four' } as never });
    actor.start();
    const waiting = await waitFor(actor, (s) => (s.context as { status: string }).status === 'waiting');
    expect((waiting.context as { waiting: { nodeId: string } }).waiting.nodeId).toBe('middle:waits');
    actor.send({ type: 'human.reply', reply: 'PASS' } as never);
    const out = (await toPromise(actor)) as unknown as WorkflowMachineOutput;
    expect(out.status).toBe('completed');
    expect(out.output).toBe('shipped signed prepared four (prepared: true)');
  });

  it('compiles the wait into the graph: a gate node after the step, WAIT to it and a back-edge to the step; a sub-workflow that cannot wait adds none', () => {
    const graph = outerFlow().compile();
    expect(graph.nodes.find((n) => n.id === 'middle:waits')).toEqual({ id: 'middle:waits', type: 'gate', label: 'middle: a person decides' });
    expect(graph.edges).toContainEqual({ from: 'middle', to: 'middle:waits', condition: 'gate', label: 'WAIT' });
    expect(graph.edges).toContainEqual({ from: 'middle:waits', to: 'middle', condition: 'back-edge' });
    const plain = Workflow.define<string>('plain').step(Workflow.define<string>('inner').step(step('x', (_c, s: string) => s)).build());
    expect(plain.compile().nodes.map((n) => n.id)).toEqual(['inner', 'finish']);
  });

  it('is stored waiting and continued from another store connection; its steps report under the nested path in both legs', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-wf-subwait-')), 'runs.db');
    const first = new SqliteRunStore({ file });
    const run = await outerFlow().run('two', { store: first });
    expect(run.status).toBe('waiting');
    await first.close();

    const second = new SqliteRunStore({ file });
    const done = await outerFlow().resume(run.runId, { decision: 'PASS' }, { store: second });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('shipped signed prepared two (prepared: true)');
    const events = (await second.listEvents(run.runId)).map((e) => e.data as WorkflowEvent);
    const inner = events.filter((e) => e.type === 'node.completed' && e.path === 'root/middle/approval').map((e) => e.nodeId);
    expect(inner).toEqual(['prepare', 'sign-off', 'sign-off:person', 'sign', 'finish']);
    await second.close();
  });

  it('takes a text reply through a RunManager (the CLI and the workbench)', async () => {
    const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-wf-subwait-')), 'runs.db') });
    const runs = new RunManager({ store, graphs: [outerFlow()] });
    const run = await runs.start('outer', 'three');
    expect(run.status).toBe('waiting');
    await expect(runs.resume(run.runId, { reply: 'maybe' })).rejects.toMatchObject({ code: 'invalid_reply' });
    const done = await runs.resume(run.runId, { reply: 'PASS: ok' });
    expect(done.status).toBe('completed');
    expect(done.outputText).toBe('shipped signed prepared three (prepared: true)');
    await store.close();
  });

  it('inside a plain step that calls it, where the run cannot wait, fails the run saying so instead of hanging', async () => {
    const approval = Workflow.define<string>('approval').step(step('p', (_c, s: string) => s)).gate(new HumanGate()).onPass(step('ok', (_c, s: string) => s)).end().build();
    // A fan-out item that is the workflow itself waits (fanOutWait.test.ts); one that wraps it in its own step cannot.
    const run = await Workflow.define<string>('fan').parallel((_c, s: string) => [s], () => step('wrap', (ctx, s: string) => approval.execute(ctx, s))).run('x');
    expect(run.status).toBe('failed');
    expect(run.error?.message).toContain('sub-workflow "approval" waits for a person');
    expect(run.error?.message).toContain('inside another step');
  });
});
