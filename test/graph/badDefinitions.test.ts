import { describe, expect, it } from 'vitest';
import { GraphDefinitionError, SequentialWorkflow, StateGraph, humanNode } from '../../src/index.js';

const wrong = (value: unknown): never => value as never;

/** Calls `build` and runs what it returns; resolves with the GraphDefinitionError it must end in. */
async function refusal(build: () => { run(input: unknown): Promise<unknown> }): Promise<GraphDefinitionError> {
  const error = await Promise.resolve()
    .then(() => build().run(wrong('x')))
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(GraphDefinitionError);
  return error as GraphDefinitionError;
}

describe('definitions JavaScript callers can get wrong', () => {
  it('refuses builder options that are not an object, and unknown options by name', async () => {
    expect((await refusal(() => new StateGraph(wrong('triage')))).message).toMatch(/options must be an object .* received "triage"/);
    expect((await refusal(() => new StateGraph(wrong([]))))).toBeDefined();
    expect((await refusal(() => new StateGraph(wrong({ maxStep: 5 })))).message).toMatch(/unknown option "maxStep"; the options are name, maxSteps, state, strictRoutes/);
    expect((await refusal(() => new SequentialWorkflow(wrong(null)))).message).toMatch(/received null/);
    expect((await refusal(() => new SequentialWorkflow(wrong({ name: 5 }))))).toBeDefined();
    expect((await refusal(() => new SequentialWorkflow(wrong({ name: '' }))))).toBeDefined();
    expect((await refusal(() => new StateGraph().addNode('h', humanNode(wrong(5))).start('h'))).message).toMatch(/humanNode\(\): options must be an object/);
  });

  it('refuses node ids that are not strings anywhere, without failing on symbols or bigints', async () => {
    for (const id of [Symbol('s'), 5n, 5, null, {}]) {
      await refusal(() => new StateGraph().addNode(wrong(id), () => 'x'));
      await refusal(() => new StateGraph().addNode('a', () => 'x').start(wrong(id)));
      await refusal(() => new StateGraph().addNode('a', () => 'x').start('a').addEdge('a', wrong(id)));
      await refusal(() => new StateGraph().addNode('a', () => 'x').start('a').addEdge(wrong(id), 'a'));
      await refusal(() => new StateGraph().addNode('a', () => 'x').start('a').addConditionalEdges(wrong(id), () => null));
    }
  });

  it('refuses an AgentNode whose executeStream is not a function', async () => {
    const node = wrong({ execute: () => 'x', executeStream: 'stream' });
    expect((await refusal(() => new StateGraph().addNode('a', node).start('a'))).message).toMatch(/executeStream must be a function/);
    expect((await refusal(() => new SequentialWorkflow().addNode(node))).message).toMatch(/executeStream must be a function/);
  });

  it('refuses request metadata that is not a plain object', async () => {
    const graph = new StateGraph().addNode('a', () => 'x').start('a');
    for (const metadata of [5, 'm', [], new Map(), null]) {
      await expect(graph.run(wrong({ input: 'x', metadata }))).rejects.toMatchObject({ code: 'graph_definition', message: expect.stringMatching(/metadata must be a plain object/) });
    }
    await expect(graph.run({ input: 'x', metadata: { channel: 'web' } })).resolves.toMatchObject({ status: 'completed' });
  });
});
