import { getShortestPaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { transition, type AnyMachineSnapshot, type EventObject } from 'xstate';
import { OfflineModel } from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';

const machine = customerService({ model: new OfflineModel() }).toMachine();
type Hop = { from: string; entry: number; to: string; kind: string; keys?: string[] };

/** Every hop of the machine, read from its own config: the guarded transitions out of each node. */
function hopsOf(): Hop[] {
  const hops: Hop[] = [];
  for (const [key, node] of Object.entries(machine.root.states)) {
    const invokeId = node.invoke[0]?.id;
    const list = invokeId ? (node.transitions.get(`xstate.done.actor.${invokeId}`) ?? []) : (node.states.routing?.always ?? []);
    for (const t of list) {
      const guard = t.guard as { type: string; params: Hop } | undefined;
      if (typeof guard === 'object' && guard.type === 'routedTo') hops.push({ ...guard.params, from: key });
    }
  }
  return hops;
}

const hops = hopsOf();
const nodeOf = (value: unknown): string => (typeof value === 'string' ? value : Object.keys(value as object)[0]!);
const invokeIdOf = (node: string) => machine.root.states[node]?.invoke[0]?.id;
/** The event that completes `node` with routing decision `entry` (what its node actor would send). */
const done = (node: string, entry: number, toEnd: boolean): EventObject =>
  ({ type: `xstate.done.actor.${invokeIdOf(node)}`, output: { result: null, durationMs: 0, decision: { entry, toEnd } } }) as EventObject;

function eventsFor(snapshot: AnyMachineSnapshot): EventObject[] {
  const node = nodeOf(snapshot.value);
  if (node === 'human_handoff' || node === 'ask_order') return [{ type: 'human.reply', reply: 'handled' } as EventObject];
  if (invokeIdOf(node) === undefined) return [];
  // Each hop, "nothing matched" (the graph ends), and the node failing.
  const failed = { type: `xstate.error.actor.${invokeIdOf(node)}`, error: new Error('node failed') } as EventObject;
  return [...hops.filter((h) => h.from === node).map((h) => done(node, h.entry, h.to === '__end__')), done(node, -1, true), failed];
}

// The generated paths: shortest event sequences reaching every state the machine can rest in.
const paths = getShortestPaths(machine, {
  input: { request: 'generated path', state: { tasks: [] } },
  serializeState: (s) => JSON.stringify(s.value),
  events: eventsFor as never,
});

describe('customer-service machine paths (@xstate/graph)', () => {
  it('has the routes of the issue: 32 hops between its nodes', () => {
    const edges = hops.map((h) => `${h.from}→${h.to}${h.keys ? `[${h.keys.join('|')}]` : ''}`).sort();
    expect(edges).toEqual(
      [
        'classify→draft[general]',
        'classify→human_handoff[human]',
        'classify→multi_plan[multi]',
        'classify→report_mcp[report]',
        'classify→retrieve[rag]',
        'classify→tool_plan[tool]',
        'draft→review',
        'human_handoff→finish',
        'ingest→classify[text]',
        'ingest→vision[image]',
        'multi_plan→specialist',
        'multi_review→draft[next]',
        'multi_review→human_handoff[handoff]',
        'report_mcp→draft[next]',
        'report_mcp→human_handoff[handoff]',
        'requery→retrieve',
        'retrieve→draft',
        'review→draft[revise]',
        'review→finish[accept]',
        'review→human_handoff[handoff]',
        'review→requery[requery]',
        'specialist→multi_review',
        'tool_execute→tool_plan',
        'tool_plan→draft[answer]',
        'tool_plan→ask_order[ask]',
        'ask_order→order_reply',
        'order_reply→tool_plan[lookup]',
        'order_reply→ask_order[ask]',
        'order_reply→human_handoff[handoff]',
        'tool_plan→human_handoff[budget_spent]',
        'tool_plan→tool_execute[call]',
        'vision→classify[next]',
        'vision→human_handoff[handoff]',
      ].sort(),
    );
  });

  it('reaches every node and the end through generated paths', () => {
    const reached = new Set(paths.map((p) => nodeOf(p.state.value)));
    const nodes = Object.keys(machine.root.states).filter((k) => !['maxSteps', 'cancelled', 'specialist'].includes(k));
    for (const node of nodes) expect(reached, node).toContain(node);
    // The coordinator's dispatch state is passed through on the way to multi_review (no tasks: the join is immediate).
    const toReview = paths.find((p) => nodeOf(p.state.value) === 'multi_review')!;
    expect(toReview.steps.map((s) => nodeOf(s.state.value))).toEqual(['ingest', 'classify', 'multi_plan', 'multi_review']);
  });

  const actorHops = hops.filter((h) => invokeIdOf(h.from) !== undefined);
  it.each(actorHops.map((h) => [`${h.from} → ${h.to}${h.keys ? ` (${h.keys.join('|')})` : ''}`, h] as const))('takes the hop %s', (_label, hop) => {
    const path = paths.find((p) => nodeOf(p.state.value) === hop.from);
    expect(path, `no generated path reaches ${hop.from}`).toBeDefined();
    const [next] = transition(machine, path!.state, done(hop.from, hop.entry, hop.to === '__end__') as never);
    const landed = nodeOf(next.value);
    // The dispatch state joins at once when there is nothing to dispatch, then routes on to multi_review.
    expect(landed).toBe(hop.to === 'specialist' ? 'multi_review' : hop.to);
  });

  it('takes the hops of the nodes without an actor: a reply finishes the handoff, a customer\'s answer goes to order_reply, the join routes to multi_review', () => {
    const waiting = paths.find((p) => nodeOf(p.state.value) === 'human_handoff')!;
    expect(waiting.state.value).toEqual({ human_handoff: 'waiting' });
    expect(nodeOf(transition(machine, waiting.state, ({ type: 'human.reply', reply: 'ok' } as EventObject) as never)[0].value)).toBe('finish');
    const planned = paths.find((p) => nodeOf(p.state.value) === 'multi_plan')!;
    expect(nodeOf(transition(machine, planned.state, (done('multi_plan', 0, false)) as never)[0].value)).toBe('multi_review');
    const asked = paths.find((p) => nodeOf(p.state.value) === 'ask_order')!;
    expect(asked.state.value).toEqual({ ask_order: 'waiting' });
    expect(nodeOf(transition(machine, asked.state, ({ type: 'human.reply', reply: 'SO20261002' } as EventObject) as never)[0].value)).toBe('order_reply');
    expect(actorHops.length + 3).toBe(hops.length);
  });

  it('ends completed, failed, or at the fuse', () => {
    const draftPath = paths.find((p) => nodeOf(p.state.value) === 'draft')!;
    expect(nodeOf(transition(machine, draftPath.state, ({ type: 'xstate.error.actor.draft', error: new Error('x') } as EventObject) as never)[0].value)).toBe('failed');
    const reviewPath = paths.find((p) => nodeOf(p.state.value) === 'finish')!;
    expect(nodeOf(transition(machine, reviewPath.state, (done('finish', -1, true)) as never)[0].value)).toBe('completed');
    const fused = getShortestPaths(machine, { input: { request: 'x', maxSteps: 2, state: { tasks: [] } }, serializeState: (s) => JSON.stringify(s.value), events: eventsFor as never });
    expect(fused.map((p) => nodeOf(p.state.value))).toContain('maxSteps');
  });
});
