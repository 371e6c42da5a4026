import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { Agent, AgentNode, Coordinator, END, StateGraph, humanNode, type AgentResult, type GraphNode, type WorkflowContext } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

/** What a router or condition saw of the step it routes from. */
type Seen = { kind: string; lastNodeId: unknown; lastText: unknown };

/** A router that records `lastNodeId` / `lastResult` and sends the run to `after`. */
const recordingRouter = (seen: Seen[], kind: string) => (ctx: WorkflowContext) => {
  seen.push({ kind, lastNodeId: ctx.get('lastNodeId'), lastText: ctx.get<AgentResult | null>('lastResult')?.outputText ?? null });
  return 'after' as const;
};

/** `before` (writes a distinct lastNodeId first) → `node` → after, routed by a recording router. */
function graphAround(node: GraphNode, seen: Seen[], kind: string) {
  return new StateGraph({ name: `order-${kind}` })
    .addNode('before', () => 'from before')
    .addNode('node', node)
    .addNode('after', () => 'done')
    .start('before')
    .addEdge('before', 'node')
    .addConditionalEdges('node', recordingRouter(seen, kind));
}

describe("ai4j's order: lastResult and lastNodeId are written before routing", () => {
  it('a router after a function node sees that node and its result', async () => {
    const seen: Seen[] = [];
    const run = await graphAround(() => 'function answer', seen, 'function').run('go');
    expect(run.status).toBe('completed');
    expect(seen).toEqual([{ kind: 'function', lastNodeId: 'node', lastText: 'function answer' }]);
  });

  it('a router after a node returning null sees lastResult null, not the previous node’s result', async () => {
    const seen: Seen[] = [];
    await graphAround(() => null, seen, 'null').run('go');
    expect(seen).toEqual([{ kind: 'null', lastNodeId: 'node', lastText: null }]);
  });

  it('a router after an agent node sees the agent node and the model’s answer', async () => {
    const seen: Seen[] = [];
    const agent = new Agent({ name: 'writer', instructions: 'write', model: new ScriptedModel([{ text: 'agent answer' }]) });
    await graphAround(new AgentNode(agent), seen, 'agent').run('go');
    expect(seen).toEqual([{ kind: 'agent', lastNodeId: 'node', lastText: 'agent answer' }]);
  });

  it('a transition condition sees the same keys, for each transition it decides', async () => {
    const seen: Seen[] = [];
    const graph = new StateGraph()
      .addNode('a', () => 'A says')
      .addNode('b', () => 'B says')
      .start('a')
      .addTransition('a', 'b', (ctx) => {
        seen.push({ kind: 'condition', lastNodeId: ctx.get('lastNodeId'), lastText: ctx.get<AgentResult>('lastResult')?.outputText });
        return true;
      })
      .addTransition('b', END, (ctx) => {
        seen.push({ kind: 'condition', lastNodeId: ctx.get('lastNodeId'), lastText: ctx.get<AgentResult>('lastResult')?.outputText });
        return true;
      });
    await graph.run('go');
    expect(seen).toEqual([
      { kind: 'condition', lastNodeId: 'a', lastText: 'A says' },
      { kind: 'condition', lastNodeId: 'b', lastText: 'B says' },
    ]);
  });

  it('a router after a human node sees the human node and the reply', async () => {
    const seen: Seen[] = [];
    const actor = createActor(graphAround(humanNode({ reason: 'approve?' }), seen, 'human').toMachine(), { input: { request: 'go' } });
    actor.start();
    await new Promise<void>((resolve) => {
      const sub = actor.subscribe((s) => {
        if (s.context.status === 'waiting') {
          sub.unsubscribe();
          resolve();
        }
      });
      if (actor.getSnapshot().context.status === 'waiting') resolve();
    });
    actor.send({ type: 'human.reply', reply: 'approved by a person' });
    const output = await toPromise(actor);
    expect(output.status).toBe('completed');
    expect(seen).toEqual([{ kind: 'human', lastNodeId: 'node', lastText: 'approved by a person' }]);
  });

  it('a router after a coordinator sees the coordinator node and its summary (the answers are in state)', async () => {
    const seen: Seen[] = [];
    const specialist = new StateGraph({ name: 'echo' }).addNode('echo', (_ctx, r) => `echo ${String(r.input)}`).start('echo');
    const coordinator = new Coordinator({ specialists: { echo: specialist } });
    const graph = new StateGraph({ name: 'order-coordinator' })
      .addNode('plan', coordinator.planNode(() => [{ kind: 'echo', input: 'x' }]))
      .addNode('dispatch', coordinator.dispatchNode())
      .addNode('after', () => 'done')
      .start('plan')
      .addEdge('plan', 'dispatch')
      .addConditionalEdges('dispatch', (ctx) => {
        seen.push({ kind: 'coordinator', lastNodeId: ctx.get('lastNodeId'), lastText: ctx.get<AgentResult | null>('lastResult') });
        return 'after';
      });
    const run = await graph.run('go');
    expect(run.status).toBe('completed');
    expect(seen).toEqual([
      { kind: 'coordinator', lastNodeId: 'dispatch', lastText: { rawResponse: { tasks: 1, completed: 1, failed: 0, cancelled: 0, maxSteps: 0, problems: [] } } },
    ]);
  });
});
