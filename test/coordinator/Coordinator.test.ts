import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { Coordinator, END, StateGraph, humanNode, serializeSnapshot, type TaskResult, type WorkflowEvent } from '../../src/index.js';

/** Resolves once `count` callers have arrived: specialists that wait on it can only finish if they run at the same time. */
function meetingPoint(count: number) {
  let arrived = 0;
  let open!: () => void;
  const all = new Promise<void>((resolve) => (open = resolve));
  return async () => {
    arrived += 1;
    if (arrived === count) open();
    await all;
  };
}

function specialist(kind: string, meet?: () => Promise<void>) {
  return new StateGraph({ name: kind })
    .addNode('work', async (ctx, request) => {
      await meet?.();
      ctx.put('seenKeys', [...ctx.state.keys()].filter((k) => !['currentNodeId', 'currentRequest'].includes(k)).sort());
      ctx.put('session', ctx.session ?? null);
      ctx.put('answer', `${kind}:${String(request.input)}`);
      if (String(request.input).includes('escalate')) {
        ctx.put('needsHuman', true);
        ctx.put('handoffReason', 'customer disputes the amount');
      }
      return `${kind} answered ${String(request.input)}`;
    })
    .start('work');
}

function parentGraph(coordinator: Coordinator, tasks: unknown) {
  return new StateGraph({ name: 'parent' })
    .addNode('plan', coordinator.planNode(() => tasks))
    .addNode('dispatch', coordinator.dispatchNode())
    .addNode('review', (ctx) => {
      const results = ctx.get<TaskResult[]>('specialistResults') ?? [];
      return results.map((r) => `${r.index}:${r.outputText}`).join(' | ');
    })
    .addNode('human', humanNode({ reason: 'a specialist needs a human' }))
    .start('plan')
    .addEdge('plan', 'dispatch')
    .addConditionalEdges('dispatch', (ctx) => ((ctx.get<TaskResult[]>('specialistResults') ?? []).some((r) => r.needsHuman) ? 'human' : 'review'))
    .addEdge('review', END);
}

describe('Coordinator', () => {
  it('runs specialists in parallel and joins their results in task order', async () => {
    const meet = meetingPoint(3);
    const coordinator = new Coordinator({ specialists: { rag: specialist('rag', meet), tool: specialist('tool', meet) }, shareState: ['customer'], exportState: ['answer', 'seenKeys', 'session'] });
    const tasks = [
      { kind: 'tool', input: 'refund SO1' },
      { kind: 'rag', input: 'return policy' },
      { kind: 'tool', input: 'lookup SO2' },
    ];
    const events: WorkflowEvent[] = [];
    const run = await parentGraph(coordinator, tasks).run('composite', { state: { customer: 'ada', secret: 'parent-only' }, session: { user: 'parent' }, onEvent: (e) => events.push(e) });
    expect(run.status).toBe('completed');
    expect(run.path).toEqual(['plan', 'dispatch', 'review']);
    expect(run.outputText).toBe('0:tool answered refund SO1 | 1:rag answered return policy | 2:tool answered lookup SO2');
    const results = run.state.get('specialistResults') as TaskResult[];
    expect(results.map((r) => [r.index, r.kind, r.status, r.runId])).toEqual([
      [0, 'tool', 'completed', `${run.runId}/tool[1]`],
      [1, 'rag', 'completed', `${run.runId}/rag[2]`],
      [2, 'tool', 'completed', `${run.runId}/tool[3]`],
    ]);
    // Isolated: only the whitelisted key reached the specialists, no session, and nothing leaked back.
    expect(results[0]!.output).toEqual({ answer: 'tool:refund SO1', seenKeys: ['customer'], session: null });
    expect(run.state.has('answer')).toBe(false);

    // Trace: every specialist event is in the same trace, under the dispatch node's span, on its own path.
    const dispatchSpan = events.find((e) => e.type === 'node.started' && e.nodeId === 'dispatch')!.spanId;
    const childStarts = events.filter((e) => e.type === 'run.started' && e.path !== 'root');
    expect(childStarts.map((e) => e.path).sort()).toEqual(['root/rag[2]', 'root/tool[1]', 'root/tool[3]']);
    for (const e of childStarts) {
      expect(e.traceId).toBe(events[0]!.traceId);
      expect(e.parentSpanId).toBe(dispatchSpan);
    }
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    // Overlap: every specialist started before any finished.
    const firstDone = events.findIndex((e) => e.type === 'specialist.completed');
    const lastStart = Math.max(...childStarts.map((e) => events.indexOf(e)));
    expect(lastStart).toBeLessThan(firstDone);
    const completed = events.find((e) => e.type === 'node.completed' && e.nodeId === 'dispatch') as Extract<WorkflowEvent, { type: 'node.completed' }>;
    expect((completed.delta?.set.specialistResults as TaskResult[]).length).toBe(3);
  });

  it('routes to a human when a specialist asks for one', async () => {
    const coordinator = new Coordinator({ specialists: { rag: specialist('rag'), tool: specialist('tool') } });
    const run = await parentGraph(coordinator, [{ kind: 'rag', input: 'policy' }, { kind: 'tool', input: 'escalate SO9' }]).run('x');
    expect(run.status).toBe('waiting');
    expect(run.path).toEqual(['plan', 'dispatch', 'human']);
    const results = run.state.get('specialistResults') as TaskResult[];
    expect(results[1]).toMatchObject({ needsHuman: true, reason: 'customer disputes the amount' });
  });

  it('fails the run clearly when the plan names an unknown specialist or too many tasks', async () => {
    const coordinator = new Coordinator({ specialists: { rag: specialist('rag') }, maxTasks: 2 });
    const unknown = await parentGraph(coordinator, [{ kind: 'weather', input: 'x' }]).run('x');
    expect(unknown.status).toBe('failed');
    expect(unknown.error?.message).toContain('coordinator task kind "weather" has no specialist; known kinds: rag');
    const many = await parentGraph(coordinator, [1, 2, 3].map((i) => ({ kind: 'rag', input: `q${i}` }))).run('x');
    expect(many.status).toBe('failed');
    expect(many.error?.code).toBe('invalid_tasks');
  });

  it('joins immediately when there is nothing to dispatch', async () => {
    const coordinator = new Coordinator({ specialists: { rag: specialist('rag') } });
    const run = await parentGraph(coordinator, []).run('x');
    expect(run.status).toBe('completed');
    expect(run.state.get('specialistResults')).toEqual([]);
  });

  it('cancels the specialists in flight when the run is cancelled', async () => {
    const aborted: string[] = [];
    const controller = new AbortController();
    let started = 0;
    const slow = new StateGraph({ name: 'slow' })
      .addNode('wait', (ctx) => new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => (aborted.push(ctx.runId), resolve(null)));
        // Cancel once both specialists are in flight.
        if (++started === 2) controller.abort();
      }))
      .start('wait');
    const coordinator = new Coordinator({ specialists: { slow } });
    const run = await parentGraph(coordinator, [{ kind: 'slow', input: 'a' }, { kind: 'slow', input: 'b' }]).run('x', { signal: controller.signal });
    expect(run.status).toBe('cancelled');
    expect(aborted.sort()).toEqual([`${run.runId}/slow[1]`, `${run.runId}/slow[2]`]);
  });

  it('persists a run mid-dispatch and finishes it from the restored snapshot, re-running the specialists in flight', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let attempts = 0;
    let bothInFlight!: () => void;
    const inFlight = new Promise<void>((resolve) => (bothInFlight = resolve));
    const gated = new StateGraph({ name: 'gated' })
      .addNode('work', async (ctx, request) => {
        attempts += 1;
        if (attempts === 2) bothInFlight();
        if (attempts <= 2) await gate;
        return `done ${String(request.input)}`;
      })
      .start('work');
    const coordinator = new Coordinator({ specialists: { gated } });
    const graph = parentGraph(coordinator, [{ kind: 'gated', input: 'a' }, { kind: 'gated', input: 'b' }]);
    const first = createActor(graph.toMachine(), { input: { request: 'x', runId: 'coord-1' } }).start();
    await inFlight;
    const json = serializeSnapshot(first.getPersistedSnapshot());
    first.stop();
    release();
    const restored = createActor(graph.toMachine(), { snapshot: JSON.parse(json), input: { request: 'ignored' } }).start();
    const output = await toPromise(restored);
    expect(attempts).toBe(4);
    expect(output).toMatchObject({ status: 'completed', outputText: '0:done a | 1:done b', path: ['plan', 'dispatch', 'review'] });
  });

  it('runs any number of tasks at once under one join, in task order whatever order they end in', async () => {
    const count = 40;
    const meet = meetingPoint(count);
    // Each specialist waits until all 40 have started, then they end in reverse order.
    const staggered = new StateGraph({ name: 'staggered' })
      .addNode('work', async (_ctx, request) => {
        await meet();
        await new Promise((r) => setTimeout(r, (count - Number(request.input)) * 2));
        return `done ${String(request.input)}`;
      })
      .start('work');
    const coordinator = new Coordinator({ specialists: { staggered } });
    const tasks = Array.from({ length: count }, (_, i) => ({ kind: 'staggered', input: String(i) }));
    const completions: number[] = [];
    const run = await parentGraph(coordinator, tasks).run('x', { onEvent: (e) => e.type === 'specialist.completed' && completions.push(Number(e.index)) });
    expect(run.status).toBe('completed');
    const results = run.state.get('specialistResults') as TaskResult[];
    expect(results.map((r) => r.outputText)).toEqual(tasks.map((t) => `done ${t.input}`));
    expect(results.every((r) => r.attempts === 1)).toBe(true);
    expect(completions[0]).toBe(count - 1);
  });

  it('compiles to one join actor, not a region per task slot', () => {
    const coordinator = new Coordinator({ specialists: { rag: specialist('rag'), tool: specialist('tool') } });
    const machine = parentGraph(coordinator, []).toMachine();
    const dispatch = machine.root.states.dispatch!;
    const all = (node: typeof dispatch): Array<typeof dispatch> => [node, ...Object.values(node.states).flatMap(all)];
    expect(all(dispatch).some((s) => s.type === 'parallel')).toBe(false);
    expect(all(dispatch).flatMap((s) => s.invoke).map((i) => i.id)).toEqual(['dispatch']);
  });

  it('reports what the dispatch did as the node result and in a specialist.completed event per task', async () => {
    const coordinator = new Coordinator({ specialists: { rag: specialist('rag'), tool: specialist('tool') } });
    const events: WorkflowEvent[] = [];
    await parentGraph(coordinator, [{ kind: 'rag', input: 'a' }, { kind: 'tool', input: 'b' }]).run('x', { onEvent: (e) => events.push(e) });
    const done = events.find((e) => e.type === 'node.completed' && e.nodeId === 'dispatch') as Extract<WorkflowEvent, { type: 'node.completed' }>;
    expect(done.result?.rawResponse).toEqual({ tasks: 2, completed: 2, failed: 0, cancelled: 0, maxSteps: 0, problems: [] });
    expect(events.filter((e) => e.type === 'specialist.completed').map((e) => [(e as Record<string, unknown>).kind, (e as Record<string, unknown>).status, (e as Record<string, unknown>).attempts])).toEqual([
      ['rag', 'completed', 1],
      ['tool', 'completed', 1],
    ]);
  });

  it('rejects a bad definition', () => {
    expect(() => new Coordinator({ specialists: {} })).toThrow(/at least one specialist/);
    expect(() => new Coordinator({ specialists: { 'a b': specialist('x') } })).toThrow(/letters, digits/);
    expect(() => new Coordinator({ specialists: { rag: specialist('rag') }, maxTasks: 0 })).toThrow(/maxTasks/);
    expect(() => new Coordinator({ specialists: { rag: specialist('rag') }, maxTasks: 2.5 })).toThrow(/maxTasks must be a positive integer/);
    expect(new Coordinator({ specialists: { rag: specialist('rag') } }).maxTasks).toBe(Number.POSITIVE_INFINITY);
  });
});
