import { describe, expect, it } from 'vitest';
import {
  Coordinator,
  ModelCatalog,
  ModelChoiceError,
  OfflineModel,
  RUN_MODEL_KEY,
  StateGraph,
  WorkflowAgent,
  checkModelChoice,
  lazyNode,
  modelNode,
  type ModelClient,
  type TaskResult,
} from '../../src/index.js';

const small = new OfflineModel();
const large = new OfflineModel();
const catalog = new ModelCatalog([
  { name: 'small', model: small },
  { name: 'large', model: large },
]);
const label = (model: ModelClient) => (model === small ? 'ran on small' : model === large ? 'ran on large' : 'ran on another');

/** A graph whose only node runs on the chosen model and answers with its name. */
const chooser = (name: string) => new StateGraph({ name }).addNode('answer', modelNode('answer', catalog, (model) => () => label(model))).start('answer');

/** A graph that runs `inner` as its only node (a subgraph). */
const wrapping = (name: string, inner: StateGraph) => new StateGraph({ name }).addNode('inner', new WorkflowAgent(inner)).start('inner');

/** plan (one task for the chooser specialist) → dispatch → report (the specialist's answer). */
function coordinated(shareState: readonly string[]) {
  const coordinator = new Coordinator({ specialists: { choose: chooser('specialist') }, shareState });
  return new StateGraph({ name: 'coordinated' })
    .addNode('plan', coordinator.planNode(() => [{ kind: 'choose', input: 'go' }]))
    .addNode('dispatch', coordinator.dispatchNode())
    .addNode('report', (ctx) => (ctx.get<TaskResult[]>('specialistResults') ?? []).map((r) => r.outputText).join(' | '))
    .start('plan')
    .addEdge('plan', 'dispatch')
    .addEdge('dispatch', 'report');
}

/** The ModelChoiceError a call throws. */
function refusal(call: () => void): ModelChoiceError {
  try {
    call();
  } catch (error) {
    if (error instanceof ModelChoiceError) return error;
    throw error;
  }
  throw new Error('no ModelChoiceError was thrown');
}

describe('StateGraph.models of nested graphs', () => {
  it('offers the models of a modelNode in a graph run as a node, and the run uses the chosen one', async () => {
    const outer = wrapping('outer', chooser('inner'));
    expect(outer.models).toEqual(['small', 'large']);
    expect(() => checkModelChoice('large', ['small', 'large'], outer, '--model')).not.toThrow();
    const run = await outer.run({ input: 'hi', metadata: { model: 'large' } });
    expect(run.status).toBe('completed');
    expect(run.outputText).toBe('ran on large');
    // The outer run records it, as a modelNode of its own would; a model recorded before wins.
    expect(run.state.get(RUN_MODEL_KEY)).toBe('large');
    const recorded = await outer.run({ input: 'hi', metadata: { model: 'large' } }, { state: { [RUN_MODEL_KEY]: 'small' } });
    expect(recorded.outputText).toBe('ran on small');
    // Two levels down too.
    expect(wrapping('outermost', wrapping('middle', chooser('deep'))).models).toEqual(['small', 'large']);
  });

  it("offers a coordinator's specialists' models when it shares runModel, and the specialists run on the run's chosen model, recorded in the parent", async () => {
    const graph = coordinated([RUN_MODEL_KEY]);
    expect(graph.models).toEqual(['small', 'large']);
    expect(() => checkModelChoice('large', ['small', 'large'], graph, 'POST /api/runs model')).not.toThrow();
    const run = await graph.run({ input: 'two things', metadata: { model: 'large' } });
    expect(run.status).toBe('completed');
    expect(run.outputText).toBe('ran on large');
    expect(run.state.get(RUN_MODEL_KEY)).toBe('large');
    // A model a node recorded before the dispatch wins over the one the run was started with.
    const recorded = await graph.run({ input: 'two things', metadata: { model: 'large' } }, { state: { [RUN_MODEL_KEY]: 'small' } });
    expect(recorded.outputText).toBe('ran on small');
  });

  it("offers no model for a coordinator that does not share runModel: its specialists would ignore the choice", () => {
    const graph = coordinated(['customer']);
    expect(graph.models).toEqual([]);
    const error = refusal(() => checkModelChoice('large', ['small', 'large'], graph, '--model'));
    expect(error.code).toBe('model_not_offered');
    expect(error.message).toContain('specialists sharing "runModel"');
  });

  it('answers for a graph that runs itself as a node without asking itself forever', () => {
    const loop = new StateGraph({ name: 'loop' }).addNode('answer', modelNode('answer', catalog, (model) => () => label(model)));
    loop.addNode('again', new WorkflowAgent(loop)).start('answer');
    expect(loop.models).toEqual(['small', 'large']);
  });

  it('names a lazyNode and how to offer its models when the graph refuses a model', () => {
    const lazy = new StateGraph({ name: 'lazy' }).addNode('draft', lazyNode('draft', () => modelNode('draft', catalog, (model) => () => label(model)))).start('draft');
    // Its node is not known before it loads: nothing is offered, and the refusal says how to fix it.
    expect(lazy.models).toEqual([]);
    const error = refusal(() => checkModelChoice('large', ['small', 'large'], lazy, '--model'));
    expect(error.code).toBe('model_not_offered');
    expect(error.message).toContain('its node "draft" is a lazyNode');
    expect(error.message).toContain("put the lazyNode inside the modelNode's build instead");
    // The fix the message gives: the lazyNode inside build offers the catalog's models.
    const fixed = new StateGraph({ name: 'fixed' }).addNode('draft', modelNode('draft', catalog, (model) => lazyNode('draft', () => () => label(model)))).start('draft');
    expect(fixed.models).toEqual(['small', 'large']);
    // A graph with no lazyNode gets no such hint.
    const plain = new StateGraph({ name: 'plain' }).addNode('answer', () => 'ok').start('answer');
    expect(refusal(() => checkModelChoice('large', ['small', 'large'], plain, '--model')).message).not.toContain('lazyNode');
  });
});
