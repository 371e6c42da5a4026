import { describe, expect, it } from 'vitest';
import { FUNCTION_MARKER, SequentialWorkflow, StateGraph, machineDefinition, machineGraph, machineToJson, machineToMermaid, type MachineEdge } from '../../src/index.js';
import { coordinatedGraph, supportGraph } from '../fixtures/traceGraphs.js';

const brief = (e: MachineEdge) => `${e.from}>${e.to}:${e.kind}${e.keys ? `[${e.keys.join(',')}]` : ''}${e.index === undefined ? '' : `#${e.index}`}`;

describe('machineGraph', () => {
  it('lists each node and its hops in the order the machine tries them', () => {
    const shape = machineGraph(supportGraph());
    expect(shape).toMatchObject({ graph: 'support', kind: 'graph', start: 'classify', maxSteps: 12 });
    expect(shape.nodes.map((n) => `${n.id}:${n.kind}:${n.actor}`)).toEqual([
      'classify:node:classify',
      'rag:node:rag',
      'tool.execute:node:tool%2Eexecute',
      'human:human:null',
      'review:node:review',
    ]);
    expect(shape.edges.filter((e) => e.from === 'classify').map(brief)).toEqual([
      'classify>maxSteps:fuse',
      'classify>failed:route-failed',
      'classify>tool.execute:conditional[refund]#0',
      'classify>rag:conditional[docs,faq]#0',
      'classify>human:conditional[other]#0',
      'classify>completed:conditional[done]#0',
      'classify>completed:end',
      'classify>failed:error',
    ]);
    // The third transition follows an unconditional one; the machine keeps neither it nor the end.
    expect(shape.edges.filter((e) => e.from === 'tool.execute' && !['fuse', 'route-failed', 'error'].includes(e.kind))).toMatchObject([
      { to: 'review', kind: 'transition', index: 0, conditional: true },
      { to: 'rag', kind: 'transition', index: 1, conditional: false },
    ]);
    // A human node has no actor, so it cannot fail on its own.
    expect(shape.edges.filter((e) => e.from === 'human').map((e) => e.kind)).toEqual(['fuse', 'route-failed', 'transition']);
    // A router without a route map may return any node id or END.
    expect(shape.edges.filter((e) => e.from === 'review' && e.kind === 'conditional').map((e) => e.keys![0])).toEqual([
      'classify',
      'rag',
      'tool.execute',
      'human',
      'review',
      '__end__',
    ]);
  });

  it('shows a coordinator as a node with its specialists and its exit', () => {
    const shape = machineGraph(coordinatedGraph());
    expect(shape.nodes.find((n) => n.id === 'dispatch')).toEqual({
      id: 'dispatch',
      key: 'dispatch',
      kind: 'coordinator',
      actor: 'dispatch::join',
      parts: [
        { name: 'faq', graph: 'faq' },
        { name: 'orders', graph: 'order-desk' },
      ],
    });
    expect(shape.edges.filter((e) => e.from === 'dispatch').map(brief)).toEqual(['dispatch>maxSteps:fuse', 'dispatch>failed:route-failed', 'dispatch>review:transition#0']);
    expect(shape.edges.filter((e) => e.to === 'dispatch').map(brief)).toEqual(['plan>dispatch:transition#0']);
  });

  it('keeps repeated ids of a sequential workflow apart by state key', () => {
    const step = { name: 'echo', execute: () => 'x' };
    const shape = machineGraph(new SequentialWorkflow({ name: 'seq' }).addNode(step).addNode(step));
    expect(shape.maxSteps).toBeNull();
    expect(shape.nodes.map((n) => n.key)).toEqual(['echo', 'echo~2']);
    expect(shape.edges.filter((e) => e.kind === 'transition').map((e) => `${e.fromKey}>${e.toKey}`)).toEqual(['echo>echo~2']);
  });
});

describe('machineToJson', () => {
  it('keeps every state, actor, guard with its params and action, with functions marked', () => {
    const json = machineToJson(supportGraph());
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    expect(json).toMatchObject({ format: 'switchboard.machine', version: 1, id: 'support' });
    expect(json.actors).toEqual(['classify', 'rag', 'tool%2Eexecute', 'review']);
    expect(json.guards).toEqual(['fuseSpent', 'routeFailed', 'budgetSpent', 'budgetRefused', 'budgetTimeUp', 'routedTo', 'validReply']);
    expect(json.actions).toEqual(expect.arrayContaining(['reportRunStarted', 'enterNode', 'completeNode', 'failNode', 'enterWaiting', 'completeHuman', 'recordFinalStatus', 'reportNodeCancelled']));
    const machine = json.machine as {
      context: string;
      initial: string;
      states: Record<string, { invoke?: { id: string; src: string; input: string; onDone: Array<{ guard?: unknown; target: string }> }; states?: Record<string, { on?: object; always?: unknown[] }>; type?: string }>;
    };
    expect(machine.context).toBe(FUNCTION_MARKER);
    expect(machine.initial).toBe('classify');
    expect(Object.keys(machine.states)).toEqual(['classify', 'rag', 'tool%2Eexecute', 'human', 'review', 'completed', 'maxSteps', 'failed', 'cancelled', 'budgetExceeded']);
    const classify = machine.states.classify!.invoke!;
    expect(classify).toMatchObject({ id: 'classify', src: 'classify', input: FUNCTION_MARKER });
    expect(classify.onDone[4]).toMatchObject({
      guard: { type: 'routedTo', params: { entry: 1, kind: 'conditional', index: 0, to: 'rag', keys: ['docs', 'faq'] } },
      target: '#support.rag',
    });
    expect(machine.states.human!.states!.waiting!.on).toMatchObject({ 'human.reply': { guard: { type: 'validReply', params: { nodeId: 'human', key: 'human' } }, target: 'routing' } });
    expect(machine.states.completed).toMatchObject({ type: 'final' });
  });
});

describe('machineDefinition', () => {
  it('names the coordinator by its node id, lists its specialists and keeps its exit', () => {
    const def = machineDefinition(coordinatedGraph().toMachine());
    expect(def.states.find((s) => s.key === 'dispatch')).toMatchObject({ nodeId: 'dispatch', kind: 'coordinator', parts: [{ name: 'faq' }, { name: 'orders', graph: 'order-desk' }] });
    expect(def.states.filter((s) => s.kind === 'final').map((s) => s.key)).toEqual(['completed', 'maxSteps', 'failed', 'cancelled', 'budgetExceeded']);
    const exits = def.hops.filter((h) => h.from === 'dispatch');
    expect(exits.map((h) => `${h.kind}>${h.to}`)).toEqual(['fuse>maxSteps', 'route-failed>failed', 'transition>review', 'end>__end__']);
    expect(exits.find((h) => h.to === 'review')).toMatchObject({ on: 'done', reachable: true });
    expect(def.hops.some((h) => h.from === 'plan' && h.to === 'dispatch')).toBe(true);
  });
});

describe('machineToMermaid', () => {
  it('draws a coordinator as a composite state with one concurrent region per specialist, with its exit', () => {
    const lines = machineToMermaid(coordinatedGraph()).trimEnd().split('\n');
    const start = lines.indexOf('  state n_dispatch {');
    expect(start).toBeGreaterThan(-1);
    expect(lines.slice(start, start + 9)).toEqual([
      '  state n_dispatch {',
      '    state "faq" as n_dispatch_faq',
      '    [*] --> n_dispatch_faq',
      '    n_dispatch_faq --> [*]',
      '    --',
      '    state "orders (order-desk)" as n_dispatch_orders',
      '    [*] --> n_dispatch_orders',
      '    n_dispatch_orders --> [*]',
      '  }',
    ]);
    // Plain edges carry no label: there is nothing to choose between.
    expect(lines).toContain('  n_plan --> n_dispatch');
    expect(lines).toContain('  n_dispatch --> n_review');
  });

  it('draws a stateDiagram-v2 with route keys on conditional edges, named transitions and the fuse, failures and unmatched ends folded into notes', () => {
    const text = machineToMermaid(supportGraph());
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('stateDiagram-v2');
    expect(lines).toContain('  direction TB');
    expect(lines).toContain('  state "tool.execute" as n_tool_2Eexecute');
    expect(lines).toContain('  [*] --> n_classify');
    expect(lines).toContain('  n_classify --> n_tool_2Eexecute : refund');
    expect(lines).toContain('  n_classify --> n_rag : docs | faq');
    expect(lines).toContain('  n_classify --> completed : done');
    expect(lines).toContain('  n_tool_2Eexecute --> n_review : if');
    expect(lines).toContain('  n_tool_2Eexecute --> n_rag : else');
    expect(lines).toContain('  n_rag --> n_review');
    expect(lines).toContain('  n_review --> completed : END');
    expect(text).not.toMatch(/transition \d/);
    expect(text).toContain(
      '  state n_human {\n    state "waiting for a reply" as n_human_waiting\n    state "routing" as n_human_routing\n    [*] --> n_human_waiting\n    n_human_waiting --> n_human_routing : human.reply\n  }',
    );
    // Every node's fuse, failure and end when no route matches: one note each, not an edge per node.
    expect(lines.filter((l) => / --> (maxSteps|failed)$| --> (maxSteps|failed) :|no route \(end\)/.test(l))).toEqual([]);
    expect(lines.slice(-4)).toEqual([
      '  note right of cancelled : any state on workflow.cancel',
      '  note right of completed : no route matched at classify, review',
      '  note right of maxSteps : any node once its maxSteps fuse (12) is spent',
      '  note right of failed : any node whose step throws or whose route fails',
    ]);
    expect(lines).toEqual(expect.arrayContaining(['  completed --> [*]', '  maxSteps --> [*]', '  failed --> [*]']));
    // Every edge line names two declared states (or a final state) and has a label without raw separators.
    const declared = new Set([...text.matchAll(/as (\S+)$/gm)].map((m) => m[1]).concat(['completed', 'maxSteps', 'failed', 'cancelled', 'budgetExceeded']));
    for (const line of lines.filter((l) => l.includes(' --> ') && !l.includes('[*]'))) {
      const [, from, to, label] = /^ +(\S+) --> (\S+)(?: : (.+))?$/.exec(line) ?? [];
      expect(declared.has(from!) && declared.has(to!), line).toBe(true);
      expect(label ?? '', line).not.toMatch(/[:;]/);
    }
  });

  it('escapes ids and keys, takes a direction and can leave out the failure hops', () => {
    const graph = new StateGraph({ name: 'odd' })
      .addNode('a: "first"; #1', () => null)
      .addNode('b', () => null)
      .start('a: "first"; #1')
      .addConditionalEdges('a: "first"; #1', (): string => 'x', { 'x:y;50%': 'b' });
    const text = machineToMermaid(graph, { direction: 'LR', failures: false });
    expect(text).toContain('  direction LR');
    expect(text).toContain('state "a#58; #34;first#34;#59; #35;1" as n_a_');
    expect(text).toContain(' --> n_b : x#58;y#59;50#37;');
    expect(text).not.toMatch(/fuse|maxSteps|failed/);
  });

  it("names a transition after its condition function, the fallback after it `else`, and draws a node's only end", () => {
    const isUrgent = () => true;
    const graph = new StateGraph({ name: 'named' })
      .addNode('triage', () => null)
      .addNode('page', () => null)
      .addNode('queue', () => null)
      .start('triage')
      .addTransition('triage', 'page', isUrgent)
      .addTransition('triage', 'queue');
    const lines = machineToMermaid(graph).split('\n');
    expect(lines).toContain('  n_triage --> n_page : if isUrgent');
    expect(lines).toContain('  n_triage --> n_queue : else');
    // page and queue have no route at all: the end is their only way on, so it stays an edge.
    expect(lines).toContain('  n_page --> completed : end');
    expect(lines).toContain('  n_queue --> completed : end');
    expect(lines.some((l) => l.startsWith('  note right of completed'))).toBe(false);
  });
});
