import { createTestModel, getShortestPaths, getSimplePaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { END, StateGraph, type GraphMachine } from '../../src/index.js';
import { graphHops, graphModel, graphPathOptions, graphPaths, uncoveredHops } from '../../src/testing/index.js';
import { dispatchGraph } from '../fixtures/durableGraphs.js';
import { supportGraph } from '../fixtures/traceGraphs.js';
import { approvalGraph, lookupLoopGraph } from '../fixtures/workbenchGraphs.js';

/** Three graphs of the tests: every kind of hop (route maps, transitions, a `.` in an id, a human node), a tool loop, an approval. */
const graphs: Array<[string, StateGraph]> = [
  ['support', supportGraph()],
  ['lookup-loop', lookupLoopGraph(0)],
  ['approval', approvalGraph()],
];

const label = (h: { from: string; to: string }) => `${h.from}→${h.to === END ? 'END' : h.to}`;

describe('graphPaths: path tests generated with @xstate/graph', () => {
  describe.each(graphs)('%s', (_name, graph) => {
    const paths = graphPaths(graph);

    it('covers every hop of the graph', () => {
      expect(graphHops(graph).length).toBeGreaterThan(1);
      expect(uncoveredHops(graph, paths).map(label)).toEqual([]);
    });

    it('replays every path on the machine, hop by hop, to where it ends', () => {
      const machine = graph.toMachine();
      for (const path of paths) {
        let [snapshot] = initialTransition(machine, { request: 'path test' });
        for (const step of path.steps) [snapshot] = transition(machine, snapshot, step.event);
        expect(snapshot.value).toEqual(path.snapshot.value);
        // Each hop starts where the one before it ended.
        path.hops.forEach((hop, i) => i > 0 && expect(hop.from).toBe(path.hops[i - 1]!.to));
      }
    });

    it('works with getShortestPaths and getSimplePaths directly, typed, and both end', () => {
      const machine: GraphMachine = graph.toMachine();
      const shortest = getShortestPaths(machine, graphPathOptions(graph));
      const simple = getSimplePaths(machine, graphPathOptions(graph));
      expect(shortest.length).toBeGreaterThan(2);
      expect(simple.length).toBeGreaterThanOrEqual(shortest.length);
      const ends = new Set(shortest.map((p) => JSON.stringify(p.state.value)));
      expect(ends).toContain('"completed"');
      expect(ends).toContain('"failed"');
    });

    it('works with createTestModel on the graph’s model, and the machine follows the model step by step', async () => {
      const machine = graph.toMachine();
      const model = createTestModel(graphModel(graph), graphPathOptions(graph));
      const modelPaths = model.getShortestPaths();
      expect(modelPaths.length).toBeGreaterThan(2);
      expect(model.getSimplePaths().length).toBeGreaterThanOrEqual(modelPaths.length);
      // The system under test: the graph's own machine, moved by the same events with transition().
      // A path's first step is its initial state (event xstate.init); the others are the events sent.
      const eventTypes = [...new Set(modelPaths.flatMap((p) => p.steps.slice(1).map((s) => s.event.type)))];
      for (const path of modelPaths) {
        let sut: SnapshotFrom<GraphMachine> = initialTransition(machine, { request: 'path test' })[0];
        // The test model calls an event's executor for each step, in order: send the machine that step's event.
        const pending = path.steps.slice(1).map((s) => s.event);
        const send = () => void (sut = transition(machine, sut, pending.shift()!)[0]);
        await path.test({
          events: Object.fromEntries(eventTypes.map((type) => [type, send])),
          states: { '*': (state) => expect(sut.value).toEqual(state.value) },
        });
        expect(pending).toEqual([]);
      }
    });
  });

  it('model-tests a coordinator graph: in the model the dispatch node is a node like the others', () => {
    const graph = dispatchGraph();
    expect(graphModel(graph).root.states.dispatch!.invoke).toEqual([]);
    const paths = graphPaths(graphModel(graph), { input: { request: 'SO1, SO2' } });
    expect(uncoveredHops(graph, paths).map(label)).toEqual([]);
    expect(paths.some((p) => p.end === 'completed' && p.hops.map(label).join(' ') === 'plan→dispatch dispatch→review review→END')).toBe(true);
    expect(createTestModel(graphModel(graph), graphPathOptions(graph)).getShortestPaths().length).toBeGreaterThan(2);
  });

  it('reaches the fuse when the input allows few steps', () => {
    const paths = graphPaths(lookupLoopGraph(0), { input: { request: 'x', maxSteps: 2 } });
    expect(paths.some((p) => p.end === 'maxSteps' && p.snapshot.output?.status === 'max-steps')).toBe(true);
  });
});
