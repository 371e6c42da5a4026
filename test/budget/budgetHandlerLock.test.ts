import { describe, expect, it } from 'vitest';
import { RunManager, StateGraph, humanNode, type ModelClient } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { memoryTarget, sqliteTarget, useStoreTarget, type StoreTarget } from '../persistence/storeTargets.js';

/** Each model turn reports 100 tokens. */
const USAGE = { inputTokens: 60, outputTokens: 40, totalTokens: 100 };
const scripted = (turns: number) => new ScriptedModel(Array.from({ length: turns }, (_, i) => ({ text: `answer ${i + 1}`, usage: USAGE })));
const ask = async (model: ModelClient, text: unknown) => (await model.complete({ messages: [{ role: 'user', content: String(text) }], tools: [] })).text ?? '';

/**
 * A model loop whose budget handler leads back into it (through `via`, when given): without a lock
 * after the handler, the loop would spend on until the fuse (40 steps: 3,900 tokens for a limit of 300).
 */
function loopBack(model: ModelClient, calls: { work: number; handoff: number }, options: { handlerAsks?: boolean; via?: 'approve' } = {}) {
  const graph = new StateGraph({ name: 'loop-back', maxSteps: 40 })
    .addNode('work', async () => {
      calls.work += 1;
      return ask(model, 'work');
    })
    .addNode('handoff', async () => {
      calls.handoff += 1;
      return options.handlerAsks === true ? `sorry: ${await ask(model, 'apologise')}` : 'handed off';
    })
    .addNode('approve', humanNode({ reason: 'the budget ran out: go on?' }))
    .start('work')
    .addEdge('work', 'work')
    .addEdge('handoff', options.via ?? 'work')
    .addEdge('approve', 'work')
    .onBudgetExceeded('handoff');
  return graph;
}

const targets: [string, () => StoreTarget][] = [
  ['memory', memoryTarget],
  ['SQLite', sqliteTarget],
];

describe.each(targets)('after a spent budget and its handler, on %s', (_name, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('a handler that leads back into the work cannot spend past the limit: the next model call fails the run', async () => {
    const { store } = target();
    const model = scripted(50);
    const calls = { work: 0, handoff: 0 };
    const run = await loopBack(model, calls).run('go', { store, budget: { maxTokens: 300 } });
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('budget_exceeded');
    expect(run.error?.message).toContain('onBudgetExceeded node has run');
    expect(run.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 300, spent: 300 });
    expect(run.spent?.tokens).toBe(300);
    expect(model.requests).toHaveLength(3);
    expect(run.path).toEqual(['work', 'work', 'work', 'handoff', 'work']);
    expect(calls).toEqual({ work: 4, handoff: 1 });
    const stored = await store.getRun(run.runId);
    expect(stored?.status).toBe('failed');
  });

  it('the handler itself may still call a model, once the budget has stopped the run', async () => {
    const { store } = target();
    const model = scripted(50);
    const calls = { work: 0, handoff: 0 };
    const run = await loopBack(model, calls, { handlerAsks: true }).run('go', { store, budget: { maxTokens: 300 } });
    expect(run.status).toBe('failed');
    // The apology was made (400 tokens in all); the work after it was not.
    expect(model.requests.map((r) => r.messages[0]?.content)).toEqual(['work', 'work', 'work', 'apologise']);
    expect(run.spent?.tokens).toBe(400);
    expect(run.state.get('lastResult')).toEqual(expect.objectContaining({ outputText: 'sorry: answer 4' }));
  });

  it('a person\'s reply after the handler releases the lock: the run goes on as they decided', async () => {
    const { store } = target();
    const model = scripted(50);
    const calls = { work: 0, handoff: 0 };
    const graph = loopBack(model, calls, { via: 'approve' });
    const runs = new RunManager({ store, graphs: [graph] });
    const first = await runs.start('loop-back', 'go', { budget: { maxTokens: 300 } });
    expect(first.status).toBe('waiting');
    expect(first.path).toEqual(['work', 'work', 'work', 'handoff', 'approve']);
    const held = (await store.getRun(first.runId))!.snapshot as { context: { budget: { locked?: boolean } } };
    expect(held.context.budget.locked).toBe(true);
    // Resumed with a reply: the person decided to go on, so the work calls the model again (and,
    // with budgets no longer stopping the run, until the fuse).
    const done = await runs.resume(first.runId, { reply: 'go on' });
    expect(done.status).toBe('max-steps');
    expect(model.requests.length).toBeGreaterThan(4);
    expect(done.budgetExceeded).toEqual({ budget: 'maxTokens', limit: 300, spent: 300 });
  });
});

describe('the lock after a budget handler survives a pause', () => {
  const target = useStoreTarget(sqliteTarget);

  it('a breakpoint after the handler, resumed without a person\'s reply, still refuses the next model call', async () => {
    const { store } = target();
    const model = scripted(50);
    const calls = { work: 0, handoff: 0 };
    const runs = new RunManager({ store, graphs: [loopBack(model, calls)] });
    const paused = await runs.start('loop-back', 'go', { budget: { maxTokens: 300 }, breakpoints: { after: ['handoff'] } });
    expect(paused.status).toBe('waiting');
    expect(paused.waiting?.breakpoint).toBe('after');
    expect(((await store.getRun(paused.runId))!.snapshot as { context: { budget: { locked?: boolean } } }).context.budget.locked).toBe(true);
    // A new manager: the resumed leg rebuilds its meter from the stored snapshot.
    const resumed = await new RunManager({ store, graphs: [loopBack(model, calls)] }).resume(paused.runId, { reply: 'ignored' });
    expect(resumed.status).toBe('failed');
    expect(resumed.error?.code).toBe('budget_exceeded');
    expect(model.requests).toHaveLength(3);
    expect(resumed.spent?.tokens).toBe(300);
  });
});
