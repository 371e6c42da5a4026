import { describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { Workflow, WorkflowExecutionError, step, type ModelClient } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

const talk = (model: ModelClient) =>
  step('talk', async (_c, s: string) => (await model.complete({ messages: [{ role: 'user', content: s }], tools: [] })).text ?? '');
const scripted = () => new ScriptedModel([{ text: 'one', usage: { inputTokens: 60, outputTokens: 40, totalTokens: 100 } }, { text: 'two', usage: { inputTokens: 60, outputTokens: 40, totalTokens: 100 } }]);

/**
 * Budgets belong to a run (`workflow.run`, `resumeRun`): the meter and the duration timer live in
 * the run around the machine. A machine started with plain `createActor` has none.
 */
describe('budgets and a workflow machine started with plain createActor', () => {
  it('refuses a budget in the machine input with invalid_input instead of ignoring it', () => {
    const flow = Workflow.define<string>('plain').step(talk(scripted()));
    let thrown: unknown = null;
    try {
      const actor = createActor(flow.toMachine(), { input: { input: 'hi', budget: { maxTokens: 100 } } as never });
      // An actor's error with no one subscribed would be thrown at the process.
      actor.subscribe({ error: () => undefined });
      actor.start();
      const snapshot = actor.getSnapshot();
      thrown = snapshot.status === 'error' ? snapshot.error : null;
      actor.stop();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WorkflowExecutionError);
    expect((thrown as WorkflowExecutionError).code).toBe('invalid_input');
    expect((thrown as Error).message).toContain('workflow.run(input, { budget })');
  });

  it('runs without budgets: its model calls are not metered and nothing stops it, while run() with the same limit does', async () => {
    const model = scripted();
    const flow = Workflow.define<string>('plain').step(talk(model)).then(talk(model));
    // The workflow machine's input is `{ input, runId?, context?, maxIterations? }` (WorkflowMachineInput).
    const actor = createActor(flow.toMachine(), { input: { input: 'hi' } as never });
    actor.start();
    const done = await waitFor(actor, (s) => s.status !== 'active', { timeout: 5_000 });
    expect(done.status).toBe('done');
    expect(done.output?.status).toBe('completed');
    expect(done.output?.budget).toBeNull();
    expect(model.requests).toHaveLength(2);
    const metered = scripted();
    const run = await Workflow.define<string>('metered').step(talk(metered)).then(talk(metered)).run('hi', { budget: { maxTokens: 100 } });
    expect(run.status).toBe('budget-exceeded');
    expect(metered.requests).toHaveLength(1);
  });
});
