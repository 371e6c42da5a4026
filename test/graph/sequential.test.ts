import { describe, expect, it } from 'vitest';
import { SequentialWorkflow, type AgentNode } from '../../src/index.js';

describe('SequentialWorkflow', () => {
  it('hands each node output to the next node', async () => {
    const run = await new SequentialWorkflow()
      .addNode(() => 'step1')
      .addNode((_ctx, request) => `echo:${String(request.input)}`)
      .run('start');
    expect(run.status).toBe('completed');
    expect(run.outputText).toBe('echo:step1');
    expect(run.path).toEqual(['step-1', 'step-2']);
    expect(run.steps).toBe(2);
  });

  it('names path entries after a node name when it has one', async () => {
    const upper: AgentNode = { name: 'upper', execute: (_ctx, r) => String(r.input).toUpperCase() };
    const run = await new SequentialWorkflow().addNode(upper).addNode(() => null).addNode(upper).run('hi');
    expect(run.path).toEqual(['upper', 'step-2', 'upper']);
    expect(run.outputText).toBe('HI');
  });

  it('returns a null result for an empty workflow', async () => {
    const run = await new SequentialWorkflow().run('anything');
    expect(run.status).toBe('completed');
    expect(run.result).toBeNull();
    expect(run.outputText).toBeNull();
    expect(run.path).toEqual([]);
  });

  it('keeps currentNodeId, currentRequest, lastResult and lastNodeId in the state', async () => {
    const seen: unknown[] = [];
    const run = await new SequentialWorkflow()
      .addNode((ctx) => {
        seen.push([ctx.get('currentNodeId'), ctx.get('currentRequest')]);
        return 'one';
      })
      .addNode((ctx) => {
        seen.push([ctx.get('currentNodeId'), ctx.get('currentRequest'), ctx.get('lastNodeId'), ctx.get('lastResult')]);
        return null;
      })
      .run({ input: 'go', metadata: { user: 'u1' } });
    expect(seen).toEqual([
      ['step-1', { input: 'go', metadata: { user: 'u1' } }],
      ['step-2', { input: 'one', metadata: { user: 'u1' } }, 'step-1', { outputText: 'one' }],
    ]);
    expect(run.state.get('lastNodeId')).toBe('step-2');
    expect(run.state.get('lastResult')).toBeNull();
  });

  it('has no fuse: a long chain runs to its end whatever maxSteps says', async () => {
    const chain = new SequentialWorkflow();
    for (let i = 0; i < 40; i++) chain.addNode((_ctx, r) => `${String(r.input)}.`);
    const run = await chain.run('', { maxSteps: 2 });
    expect(run.status).toBe('completed');
    expect(run.steps).toBe(40);
    expect(run.outputText).toBe('.'.repeat(40));
  });

  it('stream carries outputs from node to node like run', async () => {
    const chain = new SequentialWorkflow().addNode(() => 'a').addNode((_c, r) => `${String(r.input)}b`);
    const types: string[] = [];
    let last: unknown;
    for await (const event of chain.stream('x')) {
      types.push(event.type);
      last = event;
    }
    expect(types[0]).toBe('run.started');
    expect(types.at(-1)).toBe('run.completed');
    expect((last as { run: { outputText: string } }).run.outputText).toBe('ab');
  });
});
