import { getSimplePaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { END, OfflineModel } from '../../src/index.js';
import { graphHops, graphPathOptions, graphPaths, uncoveredHops, type GraphPathOptions } from '../../src/testing/index.js';
import { customerService } from '../../machines/customerService.js';

const graph = customerService({ model: new OfflineModel() });
const machine = graph.toMachine();
// No tasks planned: the coordinator has nothing to dispatch and moves on at once.
const options: GraphPathOptions = { input: { request: 'generated path', state: { tasks: [] } }, replies: { ask_order: ['SO20261002'], human_handoff: ['handled'] } };
const paths = graphPaths(graph, options);
const label = (h: { from: string; to: string; routeKeys?: string[] }) => `${h.from}→${h.to === END ? 'END' : h.to}${h.routeKeys ? `[${h.routeKeys.join('|')}]` : ''}`;

describe('customer-service machine paths (graphPaths over @xstate/graph)', () => {
  it('has the routes of the issue: 33 hops between its nodes', () => {
    expect(graphHops(graph).filter((h) => h.kind !== 'end').map(label).sort()).toEqual(
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

  it('covers every hop, the ends included, with generated paths', () => {
    expect(uncoveredHops(graph, paths).map(label)).toEqual([]);
    expect(graphHops(graph).length).toBeGreaterThan(33);
  });

  it('passes through the coordinator on the way to multi_review when nothing is dispatched', () => {
    const viaCoordinator = paths.find((p) => p.end === 'multi_review' && p.hops.some((h) => h.from === 'multi_plan'))!;
    expect(viaCoordinator.hops.map(label).slice(-3)).toEqual(['classify→multi_plan[multi]', 'multi_plan→specialist', 'specialist→multi_review']);
    expect(viaCoordinator.end).toBe('multi_review');
  });

  it('replays every path on the machine with transition(), landing where the path says', () => {
    for (const path of paths) {
      let [snapshot] = initialTransition(machine, options.input!);
      for (const step of path.steps) [snapshot] = transition(machine, snapshot, step.event);
      expect(snapshot.value, path.hops.map(label).join(' ')).toEqual(path.snapshot.value);
    }
  });

  it('ends completed after a hop to END, failed after a node fails, and at the fuse with a small maxSteps', () => {
    for (const path of paths.filter((p) => p.end === 'completed')) {
      expect(path.hops.at(-1)!.to).toBe(END);
      expect(path.snapshot.output?.status).toBe('completed');
    }
    const failed = paths.filter((p) => p.end === 'failed');
    expect(new Set(failed.map((p) => p.steps.at(-1)!.node)).size).toBeGreaterThan(10);
    const fused = graphPaths(graph, { ...options, input: { request: 'x', maxSteps: 2, state: { tasks: [] } } });
    expect(fused.some((p) => p.end === 'maxSteps' && p.snapshot.output?.status === 'max-steps')).toBe(true);
  });

  it('terminates with getSimplePaths too, through the documented options', () => {
    const simple = getSimplePaths(machine, graphPathOptions(graph, options));
    expect(simple.length).toBeGreaterThan(paths.length / 2);
  });
});
