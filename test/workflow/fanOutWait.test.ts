import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, toPromise, waitFor } from 'xstate';
import { AgentContext, HumanGate, MemoryRunStore, RunManager, Workflow, createStoreFromEnv, step, type WorkflowMachineOutput } from 'switchboard';
import { graphModel, graphPaths, uncoveredHops } from 'switchboard/testing';
import { memoryTarget, postgresTarget, sqliteTarget, type StoreTarget } from '../persistence/storeTargets.js';

/** A sub-workflow for item `tag` that writes `approved-<tag>` and asks a person at a HumanGate named `<tag>-gate`. */
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

/**
 * split → for each word: a word starting with `!` goes through an approval (it waits for a person),
 * any other is counted by a plain step → join. `counter.plain` counts the plain items' executions.
 */
function fanFlow(counter: { plain: number }, timeoutMs?: number) {
  return Workflow.define<string>('fan-wait')
    .step(step('split', (_c, s: string) => s.trim()))
    .parallel(
      (_c, s: string) => s.split(' '),
      (word: string, i: number) =>
        word.startsWith('!')
          ? approval(word.slice(1), timeoutMs)
          : step(`plain-${i}`, (_c, w: string) => {
              counter.plain++;
              return `plain ${w}`;
            }, { updateContext: (ctx) => ctx.mutate().with(`plain-${i}`, true).build() }),
    )
    .then(step('join', (ctx, parts: string[]) => `${parts.join(' | ')} [a ${String(ctx.get('approved-a'))}, b ${String(ctx.get('approved-b'))}]`));
}

const GATE_A = 'gate "a-gate" waits for a person\'s decision: reply PASS or FAIL ("FAIL: why")';

describe('a sub-workflow that waits inside a fan-out item', () => {
  it('makes the run wait, the other items finish, and the reply continues that item (the others are not run again)', async () => {
    const counter = { plain: 0 };
    const run = await fanFlow(counter).run(' x !a y ');
    expect(run.status).toBe('waiting');
    expect(run.waiting?.nodeId).toBe('fork:waits');
    expect(run.waiting?.reason).toBe(`item 2 ("approval-a") of fork waits: ${GATE_A}`);
    expect(run.path).toEqual(['split']);
    expect(counter.plain).toBe(2);
    // The plain items' context writes are in the run's state while it waits.
    expect(run.context.get('plain-0')).toBe(true);

    // A FAIL reaches the inner gate, which revises and asks again: the run still waits there.
    const again = await fanFlow(counter).resume(run.runId, { decision: 'FAIL', text: 'redo' });
    expect(again.status).toBe('waiting');
    expect(again.waiting?.reason).toBe(`item 2 ("approval-a") of fork waits: ${GATE_A}`);
    const done = await fanFlow(counter).resume(run.runId, { decision: 'PASS' });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('plain x | signed redone a:!a | plain y [a true, b undefined]');
    expect(done.path).toEqual(['split', 'join']);
    expect(counter.plain).toBe(2);
    expect(done.context.get('plain-2')).toBe(true);
    expect(done.context.keys().filter((k) => k.startsWith('workflow.fork:'))).toEqual([]);
  });

  it('asks waiting items one after another, in item order, and outputs every result in item order', async () => {
    const counter = { plain: 0 };
    const run = await fanFlow(counter).run('!b x !a');
    expect(run.status).toBe('waiting');
    expect(run.waiting?.reason).toBe('item 1 ("approval-b") of fork waits: gate "b-gate" waits for a person\'s decision: reply PASS or FAIL ("FAIL: why") (1 more item waits, asked in item order after it)');
    const second = await fanFlow(counter).resume(run.runId, { decision: 'PASS' });
    expect(second.status).toBe('waiting');
    expect(second.waiting?.reason).toBe(`item 3 ("approval-a") of fork waits: ${GATE_A}`);
    const done = await fanFlow(counter).resume(run.runId, { decision: 'PASS', text: 'fine' });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('signed b:!b | plain x | signed a:!a [a true, b true]');
    expect(counter.plain).toBe(1);
  });

  it('stores the held fan-out with its keys and item indexes in the order the per-item copies gave', async () => {
    const store = new MemoryRunStore();
    const wf = () =>
      Workflow.define<string>('fan-held').parallel(
        (_c, s: string) => s.split(' '),
        (word: string, i: number) => (word.startsWith('!') ? approval(word.slice(1)) : step(`plain-${i}`, (_c, w: string) => `plain ${w}`)),
      );
    const held = async (runId: string) => {
      const record = await store.getRun(runId);
      const state = (record?.snapshot as { context: { state: Record<string, unknown> } }).context.state;
      const value = state['workflow.fork:fork'] as Record<string, unknown>;
      return { keys: Object.keys(value), outputs: JSON.stringify(value['outputs']), waits: Object.keys(value['waits'] as object) };
    };
    const run = await wf().run('!b x !a y z', { store });
    expect(await held(run.runId)).toEqual({ keys: ['at', 'items', 'outputs', 'waits'], outputs: '{"1":"plain x","3":"plain y","4":"plain z"}', waits: ['0', '2'] });
    const second = await wf().resume(run.runId, { decision: 'PASS' }, { store });
    expect(second.status).toBe('waiting');
    expect(await held(run.runId)).toEqual({ keys: ['at', 'items', 'outputs', 'waits'], outputs: '{"0":"signed b:!b","1":"plain x","3":"plain y","4":"plain z"}', waits: ['2'] });
    const done = await wf().resume(run.runId, { decision: 'PASS' }, { store });
    expect(done.output).toEqual(['signed b:!b', 'plain x', 'signed a:!a', 'plain y', 'plain z']);
  });

  it('refuses a reply a gate cannot take, and the run goes on waiting', async () => {
    const runs = new RunManager({ store: new MemoryRunStore(), graphs: [fanFlow({ plain: 0 })] });
    const run = await runs.start('fan-wait', '!a');
    expect(run.status).toBe('waiting');
    await expect(runs.resume(run.runId, { reply: 'perhaps' })).rejects.toMatchObject({ code: 'invalid_reply' });
    const done = await runs.resume(run.runId, { reply: 'PASS' });
    expect(done.status).toBe('completed');
    expect(done.outputText).toBe('signed a:!a [a true, b undefined]');
  });

  it('waits and continues the same way under plain XState (createActor, human.reply events, toPromise)', async () => {
    const actor = createActor(fanFlow({ plain: 0 }).toMachine(), { input: { input: '!a q !b' } as never });
    actor.start();
    await waitFor(actor, (s) => (s.context as { status: string }).status === 'waiting');
    actor.send({ type: 'human.reply', reply: 'maybe' } as never);
    expect((actor.getSnapshot().context as { status: string }).status).toBe('waiting');
    actor.send({ type: 'human.reply', reply: 'PASS' } as never);
    await waitFor(actor, (s) => (s.context as { status: string; waiting: { reason: string } | null }).status === 'waiting' && s.context.waiting?.reason.includes('approval-b') === true);
    actor.send({ type: 'human.reply', reply: 'FAIL: no' } as never);
    await waitFor(actor, (s) => (s.context as { status: string; waiting: { reason: string } | null }).status === 'waiting' && s.context.waiting?.reason.includes('approval-b') === true);
    actor.send({ type: 'human.reply', reply: { decision: 'PASS' } } as never);
    const out = (await toPromise(actor)) as unknown as WorkflowMachineOutput;
    expect(out.status).toBe('completed');
    expect(out.output).toBe('signed a:!a | plain q | signed redone b:!b [a true, b true]');
  });

  it('keeps its wait out of the plain-data graph; generated path tests cover the way back from it when given a reply', () => {
    const wf = fanFlow({ plain: 0 });
    expect(wf.compile().nodes.map((n) => n.id)).not.toContain('fork:waits');
    const model = graphModel(wf.toMachine());
    const paths = graphPaths(model, { input: { request: 'x' }, replies: { 'fork:waits': [{ decision: 'PASS' }] } });
    expect(uncoveredHops(model, paths).map((h) => `${h.from}>${h.to}`)).toEqual([]);
    expect(paths.some((p) => p.hops.some((h) => h.from === 'fork:waits' && h.to === 'fork'))).toBe(true);
  });

  it('a workflow whose fan-out item waits makes a parent that uses it as a step wait too', async () => {
    const inner = Workflow.define<string>('inner-fan').parallel((_c, s: string) => [s, 'plain'], (item: string) => (item === 'plain' ? step('p', (_c, s: string) => s) : approval('c'))).build();
    const outer = Workflow.define<string>('outer-fan').step(inner).then(step('after', (ctx, s: unknown) => `${JSON.stringify(s)} ${String(ctx.get('approved-c'))}`));
    const run = await outer.run('z');
    expect(run.status).toBe('waiting');
    expect(run.waiting?.nodeId).toBe('inner-fan:waits');
    expect(run.waiting?.reason).toContain('item 1 ("approval-c") of fork waits');
    const done = await outer.resume(run.runId, { decision: 'PASS' });
    expect(done.output).toBe('["signed c:z","plain"] true');
    expect(done.path).toEqual(['inner-fan', 'after']);
  });
});

const targets: Array<[string, () => StoreTarget]> = [
  ['MemoryRunStore', memoryTarget],
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
];

describe('a fan-out that waits, stored', () => {
  const opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const one of opened.splice(0).reverse()) await one.close();
  });

  for (const [name, make] of targets) {
    it(`is stored waiting, continued through a RunManager on another connection, and a deadline in an item fires (${name})`, async () => {
      const target = make();
      opened.push(target);
      const { store } = target;
      const counter = { plain: 0 };
      const runs = new RunManager({ store, graphs: [fanFlow(counter)] });
      const run = await runs.start('fan-wait', '!b doc !a');
      expect(run.status).toBe('waiting');
      expect((await store.getRun(run.runId))!.status).toBe('waiting');
      const second = await runs.resume(run.runId, { reply: 'PASS' });
      expect(second.status).toBe('waiting');
      expect(second.waiting?.reason).toContain('item 3 ("approval-a")');
      // Another manager on its own connection to the same database takes the next reply.
      const other = name === 'MemoryRunStore' ? store : createStoreFromEnv(target.env);
      if (other !== store) opened.push(other);
      const later = new RunManager({ store: other, graphs: [fanFlow(counter)] });
      const done = await later.resume(run.runId, { reply: 'PASS' });
      expect(done.status).toBe('completed');
      expect(done.outputText).toBe('signed b:!b | plain doc | signed a:!a [a true, b true]');
      expect(counter.plain).toBe(1);

      // A HumanGate deadline inside an item: the stored run takes onTimeout by itself.
      const timed = new RunManager({ store, graphs: [fanFlow({ plain: 0 }, 0)] });
      const late = await timed.start('fan-wait', 'p !a');
      expect(late.status).toBe('waiting');
      for (;;) {
        const record = (await store.getRun(late.runId))!;
        if (record.status !== 'waiting' && record.status !== 'running') {
          expect(record.status).toBe('completed');
          expect(record.outputText).toBe('plain p | late a:!a (TIMEOUT) [a undefined, b undefined]');
          break;
        }
        await sleep(10);
      }
    }, 30_000);
  }
});
