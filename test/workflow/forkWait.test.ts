import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createActor, toPromise, waitFor } from 'xstate';
import { AgentContext, HumanGate, MemoryRunStore, RunManager, SqliteRunStore, Workflow, step, type RunStore, type WorkflowMachineOutput } from 'switchboard';

/** A sub-workflow that writes `approved-<tag>` and asks a person at a HumanGate named `<tag>-gate`. */
function approval(tag: string, timeoutMs?: number) {
  return Workflow.define<string>(`approval-${tag}`)
    .step(step(`prep-${tag}`, (_c, s: string) => `${tag}:${s}`))
    .gate(new HumanGate({ name: `${tag}-gate`, ...(timeoutMs === undefined ? {} : { timeoutMs }) }))
    .onPass(step(`sign-${tag}`, (_c, s: string) => `signed ${s}`, { updateContext: (ctx) => ctx.mutate().with(`approved-${tag}`, true).build() }))
    .onFail(step(`redo-${tag}`, (_c, s: string) => `redone ${s}`))
    .onTimeout(step(`late-${tag}`, (ctx, s: string) => `late ${s} (${String(ctx.get(AgentContext.JUDGE_VERDICT)?.decision)})`))
    .end()
    .build();
}

/** draft → parallel(check, approval-a) → ship; `check` counts its executions. */
function parallelFlow(counter: { check: number }, timeoutMs?: number) {
  return Workflow.define<string>('fork-wait')
    .step(step('draft', (_c, s: string) => s.trim()))
    .parallel(
      step('check', (_c, s: string) => {
        counter.check++;
        return s;
      }, { updateContext: (ctx) => ctx.mutate().with('checked', true).build() }),
      approval('a', timeoutMs),
    )
    .then(step('ship', (ctx, s: string) => `shipped ${s} (checked ${String(ctx.get('checked'))}, approved ${String(ctx.get('approved-a'))})`));
}

/** gather(approval-a, plain, approval-b): two branches wait, asked in branch order. */
function gatherFlow() {
  return Workflow.define<string>('gather-wait').gather(approval('a'), step('plain', (_c, s: string) => `plain ${s}`), approval('b'));
}

const stores: Array<[string, () => RunStore]> = [
  ['MemoryRunStore', () => new MemoryRunStore()],
  ['SQLite', () => new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-wf-forkwait-')), 'runs.db') })],
];

describe('a sub-workflow that waits inside a parallel branch', () => {
  it('makes the run wait at the fork, and the reply continues that branch (the other branch is not run again)', async () => {
    const counter = { check: 0 };
    const run = await parallelFlow(counter).run(' plan ');
    expect(run.status).toBe('waiting');
    expect(run.waiting?.nodeId).toBe('fork');
    expect(run.waiting?.reason).toBe('branch "approval-a" of fork waits: gate "a-gate" waits for a person\'s decision: reply PASS or FAIL ("FAIL: why")');
    expect(run.path).toEqual(['draft', 'check', 'approval-a']);

    // A FAIL reaches the inner gate, which revises and asks again: still waiting at the fork.
    const again = await parallelFlow(counter).resume(run.runId, { decision: 'FAIL', text: 'redo' });
    expect(again.status).toBe('waiting');
    expect(again.waiting?.nodeId).toBe('fork');
    const done = await parallelFlow(counter).resume(run.runId, { decision: 'PASS' });
    expect(done.status).toBe('completed');
    // parallel(): the input passes on unchanged; both branches' context writes are merged at the join.
    expect(done.output).toBe('shipped plan (checked true, approved true)');
    expect(done.path).toEqual(['draft', 'check', 'approval-a', 'ship']);
    expect(counter.check).toBe(1);
    expect(done.context.keys().filter((k) => k.startsWith('workflow.fork:'))).toEqual([]);
  });

  it('asks waiting branches one after another, in branch order, and gathers every output in order', async () => {
    const run = await gatherFlow().run('x');
    expect(run.status).toBe('waiting');
    expect(run.waiting?.reason).toContain('branch "approval-a" of fork waits');
    expect(run.waiting?.reason).toContain('1 more branch waits');
    const second = await gatherFlow().resume(run.runId, { decision: 'PASS' });
    expect(second.status).toBe('waiting');
    expect(second.waiting?.reason).toBe('branch "approval-b" of fork waits: gate "b-gate" waits for a person\'s decision: reply PASS or FAIL ("FAIL: why")');
    const done = await gatherFlow().resume(run.runId, { decision: 'PASS' });
    expect(done.status).toBe('completed');
    expect(done.output).toEqual(['signed a:x', 'plain x', 'signed b:x']);
    // Each branch once (in the order they first ran to their end or wait), however many replies it took.
    expect([...done.path].sort()).toEqual(['approval-a', 'approval-b', 'plain']);
  });

  it('waits and continues the same way under plain XState (createActor, human.reply events, toPromise)', async () => {
    const actor = createActor(gatherFlow().toMachine(), { input: { input: 'y' } as never });
    actor.start();
    await waitFor(actor, (s) => (s.context as { status: string }).status === 'waiting');
    actor.send({ type: 'human.reply', reply: 'maybe' } as never);
    expect((actor.getSnapshot().context as { status: string }).status).toBe('waiting');
    actor.send({ type: 'human.reply', reply: 'PASS' } as never);
    await waitFor(actor, (s) => (s.context as { status: string; waiting: { reason: string } | null }).status === 'waiting' && s.context.waiting?.reason.includes('approval-b') === true);
    actor.send({ type: 'human.reply', reply: 'FAIL: no' } as never);
    await waitFor(actor, (s) => (s.context as { status: string }).status === 'waiting');
    actor.send({ type: 'human.reply', reply: { decision: 'PASS' } } as never);
    const out = (await toPromise(actor)) as unknown as WorkflowMachineOutput;
    expect(out.status).toBe('completed');
    expect(out.output).toEqual(['signed a:y', 'plain y', 'signed redone b:y']);
  });

  for (const [name, open] of stores) {
    it(`is stored waiting and continued through a RunManager from another connection (${name}); a reply the gate cannot take is refused`, async () => {
      const store = open();
      const counter = { check: 0 };
      const runs = new RunManager({ store, graphs: [parallelFlow(counter)] });
      const run = await runs.start('fork-wait', 'doc');
      expect(run.status).toBe('waiting');
      expect((await store.getRun(run.runId))!.status).toBe('waiting');
      await expect(runs.resume(run.runId, { reply: 'perhaps' })).rejects.toMatchObject({ code: 'invalid_reply' });
      const other = store instanceof SqliteRunStore ? new SqliteRunStore({ file: (store as unknown as { file: string }).file }) : store;
      const later = other === store ? runs : new RunManager({ store: other, graphs: [parallelFlow(counter)] });
      const done = await later.resume(run.runId, { reply: 'PASS: ok' });
      expect(done.status).toBe('completed');
      expect(done.outputText).toBe('shipped doc (checked true, approved true)');
      expect(counter.check).toBe(1);
      if (other !== store) await other.close();
      await store.close();
    });
  }

  it('a HumanGate deadline inside the branch fires by itself (stored, RunManager)', async () => {
    const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-wf-forkwait-')), 'runs.db') });
    const runs = new RunManager({ store, graphs: [parallelFlow({ check: 0 }, 0)] });
    const run = await runs.start('fork-wait', 'late');
    expect(run.status).toBe('waiting');
    for (;;) {
      const record = (await store.getRun(run.runId))!;
      if (record.status !== 'waiting' && record.status !== 'running') {
        expect(record.status).toBe('completed');
        expect(record.outputText).toBe('shipped late (checked true, approved undefined)');
        break;
      }
      await sleep(10);
    }
    await store.close();
  }, 30_000);

  it('a workflow whose fork can wait makes a parent that uses it as a step wait too', async () => {
    const inner = Workflow.define<string>('inner-fork').parallel(step('noop-step', (_c, s: string) => s), approval('c')).build();
    const outer = Workflow.define<string>('outer-fork').step(inner).then(step('after', (ctx, s: string) => `${s} ${String(ctx.get('approved-c'))}`));
    const run = await outer.run('z');
    expect(run.status).toBe('waiting');
    expect(run.waiting?.nodeId).toBe('inner-fork:waits');
    const done = await outer.resume(run.runId, { decision: 'PASS' });
    expect(done.output).toBe('z true');
    expect(done.path).toEqual(['inner-fork', 'after']);
  });
});
