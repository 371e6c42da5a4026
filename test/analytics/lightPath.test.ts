import { describe, expect, it } from 'vitest';
import {
  Agent,
  AgentNode,
  Coordinator,
  END,
  StateGraph,
  TransitionRecorder,
  TransitionTracker,
  Workflow,
  step,
  type RunOptions,
  type TrackedEvent,
  type TransitionRecord,
  type WorkflowEvent,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

/**
 * Runs hand a TransitionRecorder their events on the light path (unstamped, see HopListener); the
 * records must equal those derived from the full trace events of the same run, and those of a run
 * where only full events are built. A clock the nodes move (reading it does not move it) makes both
 * runs' times equal whatever the number of readings.
 */
class NodeClock {
  t = 10_000;
  now = () => this.t;
}

interface Scenario {
  name: string;
  run: (options: RunOptions & { clock: NodeClock }) => Promise<{ status: string }>;
  /** What the records must at least contain (so a scenario that records nothing cannot pass). */
  expected: (records: readonly TransitionRecord[]) => void;
}

const USAGE = { inputTokens: 12, outputTokens: 8, totalTokens: 20 };
const PRICES = { scripted: { input: 2, output: 4 } };

const scenarios: Scenario[] = [
  {
    name: 'a graph with an agent, conditional routes, transitions and the fuse',
    run: ({ clock, ...options }) => {
      let passes = 0;
      const model = new ScriptedModel(Array.from({ length: 6 }, (_, i) => ({ text: `a${i}`, usage: USAGE })));
      return new StateGraph({ name: 'light-graph', maxSteps: 9 })
        .addNode('ask', new AgentNode(new Agent({ name: 'asker', instructions: 'answer', model })))
        .addNode('check', () => {
          clock.t += 7;
          return { outputText: 'c', usage: { inputTokens: 1, outputTokens: 2 } };
        })
        .addNode('fix', () => {
          clock.t += 3;
          return null;
        })
        .start('ask')
        .addEdge('ask', 'check')
        .addConditionalEdges('check', () => (passes++ % 2 === 0 ? 'again' : 'mend'), { again: 'ask', mend: 'fix' })
        .addTransition('fix', 'check')
        .run('go', { ...options, clock });
    },
    expected: (records) => {
      expect(records.map((r) => r.label)).toContain('again');
      expect(records.some((r) => r.nodeType === 'agent' && r.tokens === 20 && r.costUsd !== undefined)).toBe(true);
      expect(records.some((r) => r.from === 'check' && r.durationMs === 7 && r.tokens === 3)).toBe(true);
      expect(records.at(-1)!.to).toBe('__end__:max-steps');
    },
  },
  {
    name: 'a typed Workflow with a fork',
    run: ({ clock, ...options }) =>
      Workflow.define<string>('light-flow')
        .step(
          step('draft', (_c, s: string) => {
            clock.t += 11;
            return `draft ${s}`;
          }),
        )
        .parallel(
          step('spell', (_c, s: string) => {
            clock.t += 5;
            return s;
          }),
          step('facts', (_c, s: string) => s),
        )
        .then(step('send', (_c, s: unknown) => `sent ${String(s)}`))
        .run('x', { ...options, clock }),
    expected: (records) => {
      expect(records.map((r) => `${r.from}>${r.to}`)).toContain('draft>fork');
      expect(records.find((r) => r.from === 'draft')!.durationMs).toBe(11);
      expect(records.at(-1)!.to).toBe('__end__:completed');
    },
  },
  {
    name: 'a coordinator run with specialists',
    run: ({ clock, ...options }) => {
      const specialist = (name: string, ms: number) =>
        new StateGraph({ name })
          .addNode('look', () => {
            clock.t += ms;
            return 'seen';
          })
          .addNode('say', () => 'said')
          .start('look')
          .addEdge('look', 'say');
      const coordinator = new Coordinator({ specialists: { rag: specialist('rag', 13), tool: specialist('tool', 17) } });
      return new StateGraph({ name: 'light-parent' })
        .addNode('plan', coordinator.planNode(() => [{ kind: 'rag', input: 'a' }, { kind: 'tool', input: 'b' }]))
        .addNode('dispatch', coordinator.dispatchNode())
        .addNode('close', () => 'closed')
        .start('plan')
        .addEdge('plan', 'dispatch')
        .addEdge('dispatch', 'close')
        .addEdge('close', END)
        .run('go', { ...options, clock });
    },
    expected: (records) => {
      expect(records.find((r) => r.from === 'dispatch')!.nodeType).toBe('coordinator');
      expect(records.filter((r) => r.runId.endsWith('/tool[2]')).map((r) => r.to)).toEqual(['look', 'say', '__end__:completed']);
      // The specialists run side by side: each one's step spans at least its own time.
      expect(records.find((r) => r.workflow === 'rag' && r.from === 'look')!.durationMs).toBeGreaterThanOrEqual(13);
    },
  },
];

describe('the light path of transition recorders', () => {
  it.each(scenarios.map((s) => [s.name, s] as const))('gives the records full events give, for %s', async (_name, scenario) => {
    // One run with both: the light path and the full events of the very same run.
    const light = new TransitionRecorder({ prices: PRICES });
    const events: WorkflowEvent[] = [];
    const both = await scenario.run({ clock: new NodeClock(), runId: 'run-1', recorders: [light], onEvent: (e) => void events.push(e) });
    expect(['completed', 'max-steps']).toContain(both.status);
    const fromEvents: TransitionRecord[] = [];
    const tracker = new TransitionTracker((r) => fromEvents.push(r), { prices: PRICES });
    for (const event of events) tracker.push(event as unknown as TrackedEvent);
    scenario.expected(light.records);
    expect(light.records).toEqual(fromEvents);

    // A run with only the light path against a run with only full events: nothing may depend on
    // whether stamped events are built.
    const alone = new TransitionRecorder({ prices: PRICES });
    await scenario.run({ clock: new NodeClock(), runId: 'run-2', recorders: [alone] });
    const fullOnly: TransitionRecord[] = [];
    const fullTracker = new TransitionTracker((r) => fullOnly.push(r), { prices: PRICES });
    await scenario.run({ clock: new NodeClock(), runId: 'run-2', onEvent: (e) => fullTracker.push(e as unknown as TrackedEvent) });
    expect(alone.records.length).toBeGreaterThan(2);
    expect(alone.records).toEqual(fullOnly);
  });

  it('detaches a transition listener that throws, reports it once, and the run goes on', async () => {
    let calls = 0;
    const failing = new TransitionRecorder({
      onTransition: () => {
        calls += 1;
        throw new Error('listener down');
      },
    });
    const kept = new TransitionRecorder();
    const graph = new StateGraph({ name: 'on' }).addNode('a', () => 'x').addNode('b', () => 'y').start('a').addEdge('a', 'b');
    const run = await graph.run('go', { recorders: [failing, kept] });
    expect(run.status).toBe('completed');
    expect(calls).toBe(1);
    expect(run.callbackErrors?.map((e) => [e.code, e.message.split(':')[0]])).toEqual([['callback_failed', 'recorder failed']]);
    expect(kept.records.map((r) => `${r.from}>${r.to}`)).toEqual(['__start__>a', 'a>b', 'b>__end__:completed']);
  });
});
