import { describe, expect, it } from 'vitest';
import { StateGraph, type AgentNode, type WorkflowEvent } from '../../src/index.js';

async function collect(events: AsyncIterable<WorkflowEvent>): Promise<WorkflowEvent[]> {
  const out: WorkflowEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

let now = 1_000;
const clock = { now: () => now };

describe('run events', () => {
  it('emits run, node and edge events with envelope fields and gap-free seq', async () => {
    const graph = new StateGraph({ name: 'two' })
      .addNode('a', (ctx) => {
        ctx.put('k', 1);
        now += 7;
        return 'A';
      })
      .addNode('b', () => 'B')
      .start('a')
      .addConditionalEdges('a', () => 'go', { go: 'b' });
    const events = await collect(graph.stream('in', { runId: 'r1', clock }));
    expect(events.map((e) => e.type)).toEqual([
      'run.started',
      'node.started',
      'node.completed',
      'edge.traversed',
      'node.started',
      'node.completed',
      'edge.traversed',
      'run.completed',
    ]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const e of events) {
      expect(e.runId).toBe('r1');
      expect(e.at).toBeGreaterThanOrEqual(1_000);
    }
    expect(events[0]).toMatchObject({ type: 'run.started', graph: 'two', request: { input: 'in' } });
    expect(events[1]).toMatchObject({ type: 'node.started', nodeId: 'a', step: 1, request: { input: 'in' } });
    expect(events[2]).toMatchObject({ type: 'node.completed', nodeId: 'a', step: 1, result: { outputText: 'A' }, delta: { set: { k: 1 }, deleted: [] } });
    expect((events[2] as { durationMs: number }).durationMs).toBe(7);
    expect(events[3]).toMatchObject({ type: 'edge.traversed', from: 'a', to: 'b', kind: 'conditional', index: 0, routeKey: 'go' });
    expect(events[4]).toMatchObject({ type: 'node.started', nodeId: 'b', step: 2, request: { input: 'A' } });
    expect(events[6]).toMatchObject({ type: 'edge.traversed', from: 'b', to: '__end__', kind: 'end' });
    const last = events[7] as Extract<WorkflowEvent, { type: 'run.completed' }>;
    expect(last.run.status).toBe('completed');
    expect(last.run.outputText).toBe('B');
  });

  it('reports transitions with their index', async () => {
    const graph = new StateGraph()
      .addNode('a', () => 'A')
      .addNode('b', () => 'B')
      .start('a')
      .addTransition('a', 'b', () => false)
      .addTransition('a', 'b');
    const events = await collect(graph.stream('x'));
    expect(events.find((e) => e.type === 'edge.traversed')).toMatchObject({ from: 'a', to: 'b', kind: 'transition', index: 1 });
  });

  it('emits node.failed and route.failed with a serialized error', async () => {
    const failing = new StateGraph().addNode('a', () => {
      throw new Error('boom');
    }).start('a');
    const events = await collect(failing.stream('x'));
    expect(events.map((e) => e.type)).toEqual(['run.started', 'node.started', 'node.failed', 'run.completed']);
    expect(events[2]).toMatchObject({ nodeId: 'a', step: 1, error: { name: 'WorkflowExecutionError', code: 'node_failed' } });

    // Ids as plain strings (in a chained graph tsc refuses the unknown id).
    const badRoute = new StateGraph<null, string>().addNode('a', () => 'A').start('a').addConditionalEdges('a', () => 'nope');
    const routeEvents = await collect(badRoute.stream('x'));
    expect(routeEvents.map((e) => e.type)).toEqual(['run.started', 'node.started', 'node.completed', 'route.failed', 'run.completed']);
    expect(routeEvents[3]).toMatchObject({ nodeId: 'a', error: { code: 'node_not_found' } });
  });

  it('ends the stream with run.completed whatever the status', async () => {
    const loop = new StateGraph({ maxSteps: 2 }).addNode('a', () => null).start('a').addEdge('a', 'a');
    const events = await collect(loop.stream('x'));
    const last = events.at(-1) as Extract<WorkflowEvent, { type: 'run.completed' }>;
    expect(last.type).toBe('run.completed');
    expect(last.run.status).toBe('max-steps');
  });

  it('gives onEvent the same events in run()', async () => {
    const graph = new StateGraph().addNode('a', () => 'A').start('a');
    const seen: WorkflowEvent[] = [];
    const run = await graph.run('x', { onEvent: (e) => seen.push(e) });
    expect(seen.map((e) => e.type)).toEqual(['run.started', 'node.started', 'node.completed', 'edge.traversed', 'run.completed']);
    expect((seen.at(-1) as { run: unknown }).run).toBe(run);
  });
});

describe('executeStream', () => {
  const streaming: AgentNode = {
    name: 'talker',
    execute: () => ({ outputText: 'from execute' }),
    executeStream: async (_ctx, request, emit) => {
      emit({ type: 'model.delta', text: 'hel' });
      emit({ type: 'model.delta', text: 'lo', seq: 999, runId: 'spoofed' });
      return { outputText: `streamed:${String(request.input)}` };
    },
  };

  it('is used by stream(); its events are forwarded in order with the envelope and node id', async () => {
    const graph = new StateGraph()
      .addNode('talk', streaming)
      .addNode('next', (_ctx, r) => `next got ${String(r.input)}`)
      .start('talk')
      .addEdge('talk', 'next');
    const events = await collect(graph.stream('hi', { runId: 'r2' }));
    const deltas = events.filter((e) => e.type === 'model.delta');
    expect(deltas).toHaveLength(2);
    expect(deltas[0]).toMatchObject({ type: 'model.delta', text: 'hel', nodeId: 'talk', runId: 'r2' });
    expect(deltas[1]).toMatchObject({ text: 'lo', runId: 'r2' });
    expect(deltas[1]!.seq).toBe(deltas[0]!.seq + 1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const last = events.at(-1) as Extract<WorkflowEvent, { type: 'run.completed' }>;
    expect(last.run.outputText).toBe('next got streamed:hi');
  });

  it('is not used by run(), which calls execute', async () => {
    const graph = new StateGraph().addNode('talk', streaming).start('talk');
    expect((await graph.run('hi')).outputText).toBe('from execute');
  });

  it('fails the node when it emits something without a type', async () => {
    const bad: AgentNode = {
      execute: () => null,
      executeStream: (_ctx, _r, emit) => {
        emit({ text: 'no type' } as never);
        return null;
      },
    };
    const events = await collect(new StateGraph().addNode('bad', bad).start('bad').stream('x'));
    const last = events.at(-1) as Extract<WorkflowEvent, { type: 'run.completed' }>;
    expect(last.run.status).toBe('failed');
    expect(last.run.error?.message).toMatch(/emit objects with a string "type"/);
  });

  it('cancels the run when the consumer stops iterating', async () => {
    let aborted!: () => void;
    const nodeAborted = new Promise<void>((resolve) => (aborted = resolve));
    const graph = new StateGraph()
      .addNode('a', () => 'A')
      .addNode('slow', (ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => {
        aborted();
        resolve(null);
      })))
      .start('a')
      .addEdge('a', 'slow');
    for await (const event of graph.stream('x')) {
      if (event.type === 'node.started' && event.nodeId === 'slow') break;
    }
    // Resolves only if the node's signal is aborted; a run left going would time the test out.
    await nodeAborted;
  });
});

describe('trace envelope', () => {
  it('puts every event in one trace: run events on the run span, node events on a span per step under it', async () => {
    const graph = new StateGraph().addNode('a', () => 'A').addNode('b', () => 'B').start('a').addEdge('a', 'b');
    const events = await collect(graph.stream('x'));
    const traceIds = new Set(events.map((e) => e.traceId));
    expect(traceIds.size).toBe(1);
    expect([...traceIds][0]).toMatch(/^[0-9a-f]{32}$/);
    const runSpan = events[0]!.spanId;
    expect(runSpan).toMatch(/^[0-9a-f]{16}$/);
    for (const e of events) {
      expect(e.path).toBe('root');
      if (e.type.startsWith('run.')) {
        expect(e).toMatchObject({ spanId: runSpan, parentSpanId: null, nodeId: null });
      } else {
        expect(e.parentSpanId).toBe(runSpan);
        expect(e.spanId).not.toBe(runSpan);
      }
    }
    const spanOf = (type: string, nodeId: string) => events.find((e) => e.type === type && e.nodeId === nodeId)!.spanId;
    expect(spanOf('node.completed', 'a')).toBe(spanOf('node.started', 'a'));
    expect(spanOf('edge.traversed', 'a')).toBe(spanOf('node.started', 'a'));
    expect(spanOf('node.started', 'b')).not.toBe(spanOf('node.started', 'a'));
  });
});
