import { describe, expect, it } from 'vitest';
import { MemoryRunStore, RUN_MODEL_KEY, RunJson, RunSummaryJson, StateGraph } from '../../src/index.js';
import { toRunJson } from '../../src/json/RunJson.js';
import { runSummary } from '../../src/json/RunSummaryJson.js';

/** A one-node graph that writes `writes` to its state. */
const graphWriting = (writes: Record<string, unknown>) =>
  new StateGraph({ name: 'catalogue' })
    .addNode('look', (ctx) => {
      for (const [key, value] of Object.entries(writes)) ctx.put(key, value);
      return 'done';
    })
    .start('look');

describe("a run's model in its JSON", () => {
  it("is not taken from a state key of the user's own named `model` (a product's model, say)", async () => {
    const store = new MemoryRunStore();
    const run = await graphWriting({ model: 'XR-200' }).run('Which lamp fits my XR-200?', { store });
    expect(RunJson.parse(toRunJson(run)).model).toBeNull();
    const record = (await store.getRun(run.runId))!;
    expect(RunSummaryJson.parse(runSummary(record)).model).toBeNull();
    expect(run.state.get('model')).toBe('XR-200');
  });

  it('is the name under RUN_MODEL_KEY when a run records one', async () => {
    const store = new MemoryRunStore();
    const run = await graphWriting({ [RUN_MODEL_KEY]: 'gpt-test', model: 'XR-200' }).run('hello', { store });
    expect(toRunJson(run).model).toBe('gpt-test');
    expect(runSummary((await store.getRun(run.runId))!).model).toBe('gpt-test');
  });
});
