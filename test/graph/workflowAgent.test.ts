import { describe, expect, it } from 'vitest';
import { MemoryRecorder, MemoryRunStore, SequentialWorkflow, StateGraph, WorkflowAgent, WorkflowExecutionError, type WorkflowEvent } from '../../src/index.js';

describe('WorkflowAgent', () => {
  it('resolves with the last result of a completed run', async () => {
    const agent = new WorkflowAgent(new SequentialWorkflow().addNode(() => 'a').addNode((_c, r) => `${String(r.input)}b`));
    expect(await agent.run('x')).toEqual({ outputText: 'ab' });
  });

  it('resolves with the last result when the fuse trips', async () => {
    const loop = new StateGraph({ maxSteps: 2 }).addNode('a', (_c, r) => `${String(r.input)}!`).start('a').addEdge('a', 'a');
    expect(await new WorkflowAgent(loop).run('x')).toEqual({ outputText: 'x!!' });
  });

  it('rejects with the run error when the run failed', async () => {
    const cause = new Error('kaput');
    const failing = new StateGraph().addNode('a', () => {
      throw cause;
    }).start('a');
    const error = await new WorkflowAgent(failing).run('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowExecutionError);
    expect((error as Error).cause).toBe(cause);
  });

  it('rejects with an abort error when the run is cancelled', async () => {
    const slow = new StateGraph().addNode('a', () => new Promise(() => {})).start('a');
    const controller = new AbortController();
    const pending = new WorkflowAgent(slow).run('x', { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError', code: 'run_cancelled' });
  });

  it('passes its session to the workflow and streams its events', async () => {
    const session = { id: 's1' };
    const graph = new StateGraph().addNode('a', (ctx) => `session ${(ctx.session as typeof session).id}`).start('a');
    const agent = new WorkflowAgent(graph, session);
    expect(await agent.run('x')).toEqual({ outputText: 'session s1' });
    const types: string[] = [];
    for await (const event of agent.stream('x')) types.push(event.type);
    expect(types.at(-1)).toBe('run.completed');
  });

  it('works as a node of another graph, in run() and in stream()', async () => {
    const inner = new SequentialWorkflow({ name: 'inner' }).addNode((_c, r) => `inner(${String(r.input)})`);
    const outer = new StateGraph()
      .addNode('pre', () => 'pre')
      .addNode('nested', new WorkflowAgent(inner))
      .addNode('post', (_c, r) => `post(${String(r.input)})`)
      .start('pre')
      .addEdge('pre', 'nested')
      .addEdge('nested', 'post');
    expect((await outer.run('x')).outputText).toBe('post(inner(pre))');
    const events: WorkflowEvent[] = [];
    for await (const event of outer.stream('x')) events.push(event);
    const forwarded = events.filter((e) => e.type === 'workflow.event');
    expect(forwarded.length).toBeGreaterThan(0);
    expect(forwarded[0]).toMatchObject({ nodeId: 'nested', workflow: 'inner' });
    expect((events.at(-1) as { run: { outputText: string } }).run.outputText).toBe('post(inner(pre))');
  });

  it('reports the inner run\'s events in run() as in stream(), to recorders and the store', async () => {
    const inner = new SequentialWorkflow({ name: 'inner' }).addNode((ctx, r) => {
      ctx.report({ type: 'lookup.done', key: String(r.input) });
      return `inner(${String(r.input)})`;
    });
    const outer = new StateGraph().addNode('nested', new WorkflowAgent(inner)).start('nested');
    const forwarded = (events: ReadonlyArray<{ type: string; event?: unknown }>) =>
      events.filter((e) => e.type === 'workflow.event').map((e) => (e.event as { type: string }).type);

    const ran = new MemoryRecorder();
    const store = new MemoryRunStore();
    const run = await outer.run('x', { recorders: [ran], store });
    const streamed = new MemoryRecorder();
    for await (const _ of outer.stream('x', { recorders: [streamed] })) void _;

    expect(forwarded(ran.events)).toEqual(forwarded(streamed.events));
    expect(forwarded(ran.events)).toContain('lookup.done');
    expect((await store.listEvents(run.runId)).filter((e) => e.type === 'workflow.event')).toHaveLength(forwarded(ran.events).length);
    // Nobody listening: the inner run is not asked to report anything.
    expect((await outer.run('x')).outputText).toBe('inner(x)');
  });
});
