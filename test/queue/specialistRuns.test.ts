import { describe, expect, it } from 'vitest';
import { Coordinator, END, MemoryRunStore, StateGraph, resumeRun, storedSpecialistRuns, type TaskResult, type WorkflowRun } from '../../src/index.js';
import { insertQueuedRun } from '../../src/graph/durable/insertQueuedRun.js';
import { advanceRun } from '../../src/queue/advanceRun.js';
import { withSpecialistGraphs } from '../../src/queue/specialistGraphs.js';
import { FINISHED_STATUSES } from '../../src/persistence/RunStore.js';

/**
 * A coordinator's specialists as stored runs of their own (what a worker of the run queue does):
 * the coordinator's run waits, stored, while any is out; each specialist run is advanced on its
 * own (here by `advanceRun`, as a worker's job does); the join goes on once all have ended, with the
 * results in task order and the failure policy applied, and ends as the same request in process.
 */
function specialist(kind: string, counter: Map<string, number>) {
  return new StateGraph({ name: `spec-${kind}` })
    .addNode('work', (ctx, request) => {
      counter.set(kind, (counter.get(kind) ?? 0) + 1);
      const input = String(request.input);
      if (input.includes('boom')) throw new Error(`${kind} cannot do ${input}`);
      ctx.put('answer', `${kind}:${input}:${String(ctx.get('customer'))}`);
      return `${kind} answered ${input}`;
    })
    .start('work');
}

function parentGraph(coordinator: Coordinator, tasks: unknown) {
  return new StateGraph({ name: 'desk' })
    .addNode('plan', coordinator.planNode(() => tasks))
    .addNode('dispatch', coordinator.dispatchNode())
    .addNode('review', (ctx) =>
      (ctx.get<TaskResult[]>('specialistResults') ?? []).map((r) => `${r.index}:${r.status}:${r.outputText}:${JSON.stringify(r.output)}`).join(' | '),
    )
    .start('plan')
    .addEdge('plan', 'dispatch')
    .addEdge('dispatch', 'review')
    .addEdge('review', END);
}

const TASKS = [
  { kind: 'tool', input: 'refund SO1' },
  { kind: 'rag', input: 'return policy' },
  { kind: 'tool', input: 'lookup SO2' },
];

function setup(tasks: unknown, options: { onFailure?: 'continue' | 'fail' | 'cancel-siblings'; retries?: number } = {}) {
  const counter = new Map<string, number>();
  const coordinator = new Coordinator({ specialists: { rag: specialist('rag', counter), tool: specialist('tool', counter) }, shareState: ['customer'], exportState: ['answer'], ...options });
  const graph = parentGraph(coordinator, tasks);
  const store = new MemoryRunStore();
  const graphs = withSpecialistGraphs([graph]);
  const specialistRuns = storedSpecialistRuns(store);
  const advance = (runId: string) => advanceRun(runId, { store, graphs, owner: 'test/1/a', leaseMs: 30_000, specialistRuns });
  return { graph, store, graphs, counter, advance };
}

async function startQueued(setupResult: ReturnType<typeof setup>): Promise<string> {
  const record = await insertQueuedRun(setupResult.graph.toMachine(), 'composite', { store: setupResult.store, runId: 'parent1', state: { customer: 'ada' } });
  return record.runId;
}

describe('coordinator specialists as stored runs of their own (the run queue\'s child jobs, without Redis)', () => {
  it('parks the coordinator run while its specialists are out and joins their results in task order once all ended', async () => {
    const s = setup(TASKS);
    const runId = await startQueued(s);
    const first = await s.advance(runId);
    expect(first.outcome).toBe('advanced');
    const waiting = (first as { run: WorkflowRun }).run;
    expect(waiting.status).toBe('waiting');
    const queued = waiting.waiting!.queued!;
    // Deterministic ids: <run>:<dispatch step>:<task number>.
    expect(queued.runs.map((r) => r.runId)).toEqual(['parent1:2:1', 'parent1:2:2', 'parent1:2:3']);
    expect(queued.runs.map((r) => r.kind)).toEqual(['tool', 'rag', 'tool']);
    // Nothing ran yet: the specialists are queued runs, the parent holds no lease.
    expect(s.counter.size).toBe(0);
    const parked = (await s.store.getRun(runId))!;
    expect(parked.status).toBe('waiting');
    expect(parked.owner).toBeNull();
    for (const r of queued.runs) expect((await s.store.getRun(r.runId))!.status).toBe('queued');
    // A reply is refused: the run waits for its specialists, not for a person.
    await expect(resumeRun(s.graph, runId, { reply: 'hello' }, { store: s.store })).rejects.toMatchObject({ code: 'run_not_waiting' });

    // Two of three ended: the coordinator run looks again and parks again.
    await s.advance('parent1:2:3');
    await s.advance('parent1:2:1');
    const again = (await s.advance(runId)) as { run: WorkflowRun };
    expect(again.run.status).toBe('waiting');
    expect(again.run.waiting!.queued!.runs.map((r) => r.runId)).toEqual(['parent1:2:2']);
    await s.advance('parent1:2:2');
    const done = (await s.advance(runId)) as { run: WorkflowRun };
    expect(done.run.status).toBe('completed');
    // Each specialist ran once.
    expect(Object.fromEntries(s.counter)).toEqual({ tool: 2, rag: 1 });

    // The same request in process ends the same way.
    const inProcess = await setup(TASKS).graph.run('composite', { state: { customer: 'ada' } });
    expect(done.run.outputText).toBe(inProcess.outputText);
    expect(done.run.path).toEqual(inProcess.path);
    expect(done.run.outputText).toContain('0:completed:tool answered refund SO1:{"answer":"tool:refund SO1:ada"}');
    const events = (await s.store.listEvents(runId)).map((e) => e.data as { type: string; cause?: string });
    expect(events.filter((e) => e.type === 'run.resumed').map((e) => e.cause)).toEqual(['specialists', 'specialists']);
    expect(events.filter((e) => e.type === 'specialist.completed')).toHaveLength(3);
  });

  it('creates each specialist run once, however often the coordinator run is continued before they end', async () => {
    const s = setup(TASKS);
    const runId = await startQueued(s);
    await s.advance(runId);
    const before = (await s.store.listRuns({ limit: 100 })).length;
    await s.advance(runId);
    await s.advance(runId);
    expect((await s.store.listRuns({ limit: 100 })).length).toBe(before);
    expect(before).toBe(4);
  });

  it("applies the failure policy to a specialist run that failed: a retry is a new run, then 'fail' cancels the rest", async () => {
    const s = setup([{ kind: 'rag', input: 'boom' }, { kind: 'tool', input: 'refund SO1' }], { onFailure: 'fail', retries: 1 });
    const runId = await startQueued(s);
    await s.advance(runId);
    expect((await s.advance('parent1:2:1')).outcome).toBe('advanced');
    expect((await s.store.getRun('parent1:2:1'))!.status).toBe('failed');
    // The parent sees the failure and retries it as a run of its own.
    const retry = (await s.advance(runId)) as { run: WorkflowRun };
    expect(retry.run.waiting!.queued!.runs.map((r) => r.runId)).toEqual(['parent1:2:1.2', 'parent1:2:2']);
    await s.advance('parent1:2:1.2');
    const failed = (await s.advance(runId)) as { run: WorkflowRun };
    expect(failed.run.status).toBe('failed');
    expect(failed.run.error?.code).toBe('specialist_failed');
    // The sibling still out was cancelled in the store.
    await new Promise((r) => setTimeout(r, 20));
    expect((await s.store.getRun('parent1:2:2'))!.status).toBe('cancelled');
    expect(FINISHED_STATUSES.has((await s.store.getRun(runId))!.status)).toBe(true);
  });

  it('registers the specialist graphs of every coordinator for the worker', () => {
    const s = setup(TASKS);
    expect([...s.graphs.keys()].sort()).toEqual(['desk', 'spec-rag', 'spec-tool']);
  });
});
