import { afterEach, describe, expect, it } from 'vitest';
import { Coordinator, END, StateGraph, Workflow, step, type AgentNode, type RunStore, type TaskResult, type WorkflowEvent } from '../../../src/index.js';
import { redactEvent, secretValues } from '../../../src/engine.js';
import { memoryTarget, postgresTarget, sqliteTarget, useStoreTarget } from '../../persistence/storeTargets.js';

/**
 * A stored run whose only reader is a live listener (no recorder): its log takes the events from
 * their parts, as the run made them, and redacts what it keeps itself. What it keeps must be,
 * event for event and byte for byte (key order included), what the listener saw at the time,
 * redacted as a recorder gets it (`redactEvent`: secrets out, the run's state map as an object).
 */
const seen = (event: WorkflowEvent): string => JSON.stringify(redactEvent(event, secretValues()));
const SECRET = 'sv-step-events-secret-0123456789';

afterEach(() => {
  delete process.env.STEP_EVENTS_TEST_API_KEY;
});

const talker: AgentNode = {
  execute: () => 'quiet',
  executeStream: (_ctx, request, emit) => {
    emit({ type: 'note', text: 'plain', list: [1, { two: 2 }] });
    emit({ type: 'model.delta', text: 'live only' });
    return `talked ${String(request.input)}`;
  },
};

/** A loop with custom events, live-only deltas (gaps in seq), conditional edges with route keys, an end edge, and one step whose result needs redacting when `leak` is set. */
function loopGraph(leak: boolean) {
  return new StateGraph({ name: 'step-events', maxSteps: 200 })
    .addNode('talk', talker)
    .addNode('a', (ctx) => {
      ctx.put('count', (ctx.get<number>('count') ?? 0) + 1);
      ctx.put('list', [...(ctx.get<number[]>('list') ?? []), ctx.get<number>('count')!]);
      return null;
    })
    .addNode('b', (ctx) => {
      const count = ctx.get<number>('count')!;
      const text = leak && count === 7 ? `key ${SECRET} inside` : `b${count}`;
      return { outputText: text, rawResponse: { nested: [count, { two: 2 }], none: null, ...(leak && count === 9 ? { apiKey: 'abcdefghijkl' } : {}) } };
    })
    .start('talk')
    .addEdge('talk', 'a')
    .addEdge('a', 'b')
    .addConditionalEdges('b', (ctx) => ((ctx.get<number>('count') ?? 0) < 30 ? 'again' : 'done'), { again: 'a', done: END });
}

async function graphRun(store: RunStore, leak: boolean): Promise<{ runId: string; live: string[] }> {
  const live: string[] = [];
  let runId = '';
  for await (const event of loopGraph(leak).stream('go', { store })) {
    runId = event.runId;
    live.push(seen(event));
  }
  return { runId, live };
}

async function workflowRun(store: RunStore): Promise<{ runId: string; live: string[] }> {
  const live: string[] = [];
  const wf = Workflow.define<string>('step-events-workflow')
    .step(step('draft', (_c, s: string) => `draft ${s}`))
    .parallel(
      step('spell', (_c, s: string) => s, { updateContext: (ctx) => ctx.mutate().with('spelled', true).build() }),
      step('facts', (_c, s: string) => s, { updateContext: (ctx) => ctx.mutate().with('checked', 2).build() }),
    )
    .then(step('send', (_c, s: string) => `sent ${s}`));
  const run = await wf.run('y', { store, onEvent: (e) => live.push(seen(e)) });
  expect(run.status).toBe('completed');
  return { runId: run.runId, live };
}

async function coordinatorRun(store: RunStore): Promise<{ runId: string; live: string[] }> {
  const live: string[] = [];
  const specialist = (kind: string) =>
    new StateGraph({ name: kind })
      .addNode('work', (ctx, request) => {
        ctx.put('answer', `${kind}:${String(request.input)}`);
        return `${kind} answered ${String(request.input)}`;
      })
      .start('work');
  const coordinator = new Coordinator({ specialists: { rag: specialist('rag'), tool: specialist('tool') }, exportState: ['answer'] });
  const tasks = [
    { kind: 'tool', input: 'refund SO1' },
    { kind: 'rag', input: 'return policy' },
  ];
  const graph = new StateGraph({ name: 'step-events-parent' })
    .addNode('plan', coordinator.planNode(() => tasks))
    .addNode('dispatch', coordinator.dispatchNode())
    .addNode('review', (ctx) => (ctx.get<TaskResult[]>('specialistResults') ?? []).map((r) => `${r.index}:${r.outputText}`).join(' | '))
    .start('plan')
    .addEdge('plan', 'dispatch')
    .addEdge('dispatch', 'review');
  const run = await graph.run('composite', { store, onEvent: (e) => live.push(seen(e)) });
  expect(run.status).toBe('completed');
  return { runId: run.runId, live };
}

/** Every way of reading the log (all of it, after each seq, in pages) gives the live events, as JSON text. */
async function expectStoredAsLive(store: RunStore, runId: string, live: readonly string[]): Promise<void> {
  const kept = live.filter((text) => !text.startsWith('{"type":"model.delta"'));
  expect(kept.length).toBeGreaterThan(5);
  const stored = await store.listEvents(runId);
  expect(stored.map((e) => JSON.stringify(e.data))).toEqual(kept);
  const seqs = kept.map((text) => (JSON.parse(text) as { seq: number }).seq);
  for (const [i, seq] of seqs.entries()) {
    if (i % 7 !== 0) continue;
    const after = await store.listEvents(runId, { afterSeq: seq, limit: 3 });
    expect(after.map((e) => JSON.stringify(e.data))).toEqual(kept.slice(i + 1, i + 4));
  }
}

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
  ['memory', memoryTarget],
] as const)('step events of a run with no recorder (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  it('are kept exactly as a live listener saw them: a graph loop with custom events, route keys and gaps in seq', async () => {
    const { runId, live } = await graphRun(target().store, false);
    const types = live.map((text) => (JSON.parse(text) as WorkflowEvent).type);
    expect(types.filter((t) => t === 'node.completed').length).toBeGreaterThan(60);
    expect(live.some((text) => text.includes('"routeKey":"again"'))).toBe(true);
    expect(live.some((text) => text.includes('"to":"__end__"'))).toBe(true);
    await expectStoredAsLive(target().store, runId, live);
  });

  it('are kept exactly as a live listener saw them: a typed workflow and a coordinator with specialists', async () => {
    for (const run of [workflowRun, coordinatorRun]) {
      const { runId, live } = await run(target().store);
      await expectStoredAsLive(target().store, runId, live);
    }
  });

  it('are redacted one by one when one of them needs it, the others kept as they were', async () => {
    process.env.STEP_EVENTS_TEST_API_KEY = SECRET;
    expect(secretValues()).toContain(SECRET);
    const { runId, live } = await graphRun(target().store, true);
    expect(live.filter((text) => text.includes('[redacted]')).length).toBeGreaterThanOrEqual(2);
    await expectStoredAsLive(target().store, runId, live);
    const all = JSON.stringify(await target().store.listEvents(runId));
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain('abcdefghijkl');
    expect(all).toContain('[redacted]');
  });

  it('are kept exactly as a live listener saw them when the last ones hold large values: a long path, a large object twice, a long string', async () => {
    const big = { rows: Array.from({ length: 60 }, (_, i) => `row ${i} of a large object`) };
    for (const write of ['none', 'object twice', 'long string'] as const) {
      const graph = new StateGraph({ name: 'step-events-large', maxSteps: 300 })
        .addNode('a', (ctx) => {
          ctx.put('count', (ctx.get<number>('count') ?? 0) + 1);
          if (write === 'object twice' && ctx.get('first') === undefined) {
            ctx.put('first', big);
            ctx.put('second', big);
          }
          if (write === 'long string' && ctx.get('text') === undefined) ctx.put('text', 'x'.repeat(2_000));
          return null;
        })
        .addNode('b', () => null)
        .start('a')
        .addEdge('a', 'b')
        .addEdge('b', 'a');
      const live: string[] = [];
      const run = await graph.run('go', { store: target().store, onEvent: (e) => live.push(seen(e)) });
      expect(run.steps).toBe(300);
      // run.completed holds the run's path (300 ids): an object larger than a value table's least (1 KiB).
      expect(JSON.stringify((JSON.parse(live.at(-1)!) as { run: { path: string[] } }).run.path).length).toBeGreaterThan(1_024);
      await expectStoredAsLive(target().store, run.runId, live);
    }
  });

  it('keep what a step was when it happened: a node that changes the result it returned, a listener that changes the events it gets', async () => {
    const shared = { outputText: 'same object', rawResponse: { n: 0 } };
    const graph = new StateGraph({ name: 'step-events-mutating', maxSteps: 40 })
      .addNode('a', (ctx) => {
        ctx.put('count', (ctx.get<number>('count') ?? 0) + 1);
        shared.rawResponse.n += 1;
        return shared as never;
      })
      .start('a')
      .addEdge('a', 'a');
    const live: string[] = [];
    const run = await graph.run('go', {
      store: target().store,
      onEvent: (e) => {
        live.push(seen(e));
        const event = e as { delta?: { set?: Record<string, unknown> } | null; request?: Record<string, unknown> };
        if (event.delta?.set !== undefined) event.delta.set.count = 'changed by a listener';
        if (event.request !== undefined) event.request.input = 'changed by a listener';
      },
    });
    expect(run.steps).toBe(40);
    await expectStoredAsLive(target().store, run.runId, live);
  });
});

