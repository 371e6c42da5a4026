import { describe, expect, it } from 'vitest';
import { END, HumanGate, StateGraph, Workflow, machineDefinition, machineToMermaid, step, type MachineHop } from '../../src/index.js';

const routes = (hops: MachineHop[], from: string) => hops.filter((h) => h.from === from && (h.kind === 'conditional' || h.kind === 'transition'));

describe('machineDefinition: what the workbench draws', () => {
  it('marks the fallback transition of a typed workflow’s gates unreachable (a person’s gate always waits, a judging gate always answers a route)', () => {
    const judged = Workflow.define<string>('judged')
      .step(step('write', (_c, s: string) => s))
      .gate({ name: 'judge', evaluate: (_c: unknown, s: string) => (s.length > 3 ? 'PASS' : 'FAIL') })
      .onPass(step('ship', (_c, s: string) => s))
      .onFail(step('fix', (_c, s: string) => `${s}!`))
      .end();
    const asked = Workflow.define<string>('asked')
      .step(step('write', (_c, s: string) => s))
      .gate(new HumanGate({ name: 'approval' }))
      .onPass(step('ship', (_c, s: string) => s))
      .end();
    for (const [workflow, gate] of [[judged, 'judge'], [asked, 'approval']] as const) {
      const def = machineDefinition(workflow.toMachine());
      const fallback = routes(def.hops, gate).filter((h) => h.kind === 'transition');
      expect(fallback.length, gate).toBeGreaterThan(0);
      for (const hop of fallback) expect(hop.reachable, `${gate} → ${hop.to}`).toBe(false);
      // Its routes stay drawable, and a plain step's way on is reachable.
      expect(routes(def.hops, gate).filter((h) => h.reachable).map((h) => h.label)).not.toHaveLength(0);
      expect(routes(def.hops, 'write').find((h) => h.kind === 'transition')?.reachable).toBe(true);
    }
    // The Mermaid export leaves it out as well.
    const mermaid = machineToMermaid(asked.toMachine());
    expect(mermaid).toMatch(/^ {2}n_approval --> n_approval_person : WAIT$/m);
    expect(mermaid).not.toMatch(/^ {2}n_approval --> completed/m);
    expect(machineToMermaid(judged.toMachine())).not.toMatch(/^ {2}n_judge --> completed/m);
  });

  it('labels hops as the Mermaid export does: route keys, a workflow edge’s label, if <condition> and else', () => {
    const isUrgent = (): boolean => true;
    const graph = new StateGraph({ name: 'labels' })
      .addNode('triage', () => 'x')
      .addNode('rush', () => 'r')
      .addNode('queue', () => 'q')
      .addNode('route', () => 'y')
      .addTransition('triage', 'rush', isUrgent)
      .addTransition('triage', 'queue')
      .addConditionalEdges('rush', (): string => 'done', { done: 'route', again: 'triage', stop: END })
      .addEdge('queue', 'route')
      .start('triage');
    const def = machineDefinition(graph.toMachine());
    const label = (from: string, to: string) => routes(def.hops, from).find((h) => h.to === to)?.label;
    expect(label('triage', 'rush')).toBe('if isUrgent');
    expect(label('triage', 'queue')).toBe('else');
    expect(label('rush', 'route')).toBe('done');
    expect(label('rush', END)).toBe('stop');
    expect(label('queue', 'route')).toBeUndefined();

    const review = Workflow.define<string>('review')
      .step(step('draft', (_c, s: string) => s))
      .gate(new HumanGate({ name: 'approval' }))
      .onPass(step('publish', (_c, s: string) => s))
      .onFail(step('revise', (_c, s: string) => s))
      .end();
    const wf = machineDefinition(review.toMachine());
    expect(routes(wf.hops, 'approval:person').map((h) => [h.to, h.label])).toEqual([
      ['publish', 'PASS'],
      ['finish', 'TIMEOUT'],
      ['revise', 'FAIL'],
    ]);
  });
});
