import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  Coordinator,
  END,
  MemoryRecorder,
  PostgresRunStore,
  SqliteRunStore,
  StateGraph,
  Workflow,
  step,
  type AgentNode,
  type RunStore,
  type StoredEvent,
  type TaskResult,
  type TraceEvent,
} from '../../src/index.js';
import { memoryTarget, PG_URL, postgresTarget, sqliteTarget, useStoreTarget, type StoreTarget } from './storeTargets.js';

/** A node that streams its own events: one plain, one with fields named like the envelope's (the envelope wins, the keys keep their places). */
const talker: AgentNode = {
  execute: () => 'quiet',
  executeStream: (_ctx, request, emit) => {
    emit({ type: 'note', text: 'plain' });
    emit({ type: 'note', seq: 999, runId: 'spoofed', path: 'elsewhere', at: 1, text: 'spoofing' });
    emit({ type: 'model.delta', text: 'live only' });
    return `talked ${String(request.input)}`;
  },
};

function graphRun(store: RunStore, recorder: MemoryRecorder) {
  const graph = new StateGraph({ name: 'log-graph', maxSteps: 40 })
    .addNode('talk', talker)
    .addNode('a', (ctx) => {
      ctx.put('count', (ctx.get<number>('count') ?? 0) + 1);
      return null;
    })
    .addNode('b', (ctx) => ({ outputText: `b${ctx.get<number>('count')}`, rawResponse: { nested: [1, { two: 2 }], none: null } }))
    .start('talk')
    .addEdge('talk', 'a')
    .addEdge('a', 'b')
    .addConditionalEdges('b', (ctx) => ((ctx.get<number>('count') ?? 0) < 12 ? 'again' : 'done'), { again: 'a', done: END });
  return (async () => {
    let runId = '';
    for await (const event of graph.stream('go', { store, state: { seed: 'x' }, recorders: [recorder] })) runId = event.runId;
    return runId;
  })();
}

async function workflowRun(store: RunStore, recorder: MemoryRecorder) {
  const wf = Workflow.define<string>('log-workflow')
    .step(step('draft', (_c, s: string) => `draft ${s}`))
    .parallel(
      step('spell', (_c, s: string) => s, { updateContext: (ctx) => ctx.mutate().with('spelled', true).build() }),
      step('facts', (_c, s: string) => s, { updateContext: (ctx) => ctx.mutate().with('checked', 2).build() }),
    )
    .then(step('send', (_c, s: string) => `sent ${s}`));
  const run = await wf.run('y', { store, recorders: [recorder] });
  expect(run.status).toBe('completed');
  return run.runId;
}

async function coordinatorRun(store: RunStore, recorder: MemoryRecorder) {
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
    { kind: 'tool', input: 'lookup SO2' },
  ];
  const graph = new StateGraph({ name: 'log-parent' })
    .addNode('plan', coordinator.planNode(() => tasks))
    .addNode('dispatch', coordinator.dispatchNode())
    .addNode('review', (ctx) => (ctx.get<TaskResult[]>('specialistResults') ?? []).map((r) => `${r.index}:${r.outputText}`).join(' | '))
    .start('plan')
    .addEdge('plan', 'dispatch')
    .addEdge('dispatch', 'review');
  const run = await graph.run('composite', { store, recorders: [recorder] });
  expect(run.status).toBe('completed');
  return run.runId;
}

const RUNS = { graph: graphRun, workflow: workflowRun, coordinator: coordinatorRun };

/** Checks every way of reading the log (all of it, after each seq, pages) against the live events, as JSON text (key order included). */
async function expectSameEvents(store: RunStore, runId: string, live: readonly TraceEvent[]) {
  const kept = live.filter((e) => e.type !== 'model.delta');
  expect(kept.length).toBeGreaterThan(5);
  const stored = await store.listEvents(runId);
  expect(stored.map((e) => [e.runId, e.seq, e.type, e.at])).toEqual(kept.map((e) => [runId, e.seq, e.type, e.at]));
  expect(stored.map((e) => JSON.stringify(e.data))).toEqual(kept.map((e) => JSON.stringify(e)));
  // A reader resuming after any event (SSE's Last-Event-ID), and one reading in pages.
  for (const [i, event] of kept.entries()) {
    const after = await store.listEvents(runId, { afterSeq: event.seq, limit: 2 });
    expect(after.map((e) => JSON.stringify(e.data))).toEqual(kept.slice(i + 1, i + 3).map((e) => JSON.stringify(e)));
  }
  return stored;
}

describe.each([
  ['SQLite', sqliteTarget],
  ['PostgreSQL', postgresTarget],
  ['memory', memoryTarget],
] as const)('the stored event log (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);

  for (const [name, run] of Object.entries(RUNS)) {
    it(`reads back exactly the events a ${name} run emitted live`, async () => {
      // A recorder of the run gets each event redacted, as the stored log was always written.
      const recorder = new MemoryRecorder();
      const runId = await run(target().store, recorder);
      const stored = await expectSameEvents(target().store, runId, recorder.events);
      if (name === 'graph') {
        // The envelope fields of a node's own event are the envelope's, in the places the node gave them.
        const spoofing = stored.find((e) => e.data.text === 'spoofing')!;
        expect(Object.keys(spoofing.data).slice(0, 6)).toEqual(['type', 'seq', 'runId', 'path', 'at', 'text']);
        expect(spoofing.data).toMatchObject({ runId, path: 'root' });
        expect(spoofing.data.seq).toBe(spoofing.seq);
      }
      if (name === 'coordinator') {
        // Specialists' events carry their own run ids and paths inside the parent's log.
        expect(new Set(stored.map((e) => e.data.runId)).size).toBeGreaterThan(1);
        expect(new Set(stored.map((e) => e.data.path)).size).toBeGreaterThan(1);
      }
    });
  }
});

/** The rows written before the event log format: one event's data per row, and lists of events in two item shapes. */
function oldRows(runId: string) {
  const envelope = (seq: number, at: number, nodeId: string | null) => ({ runId, seq, at, traceId: 't'.repeat(32), spanId: 's'.repeat(16), parentSpanId: null, path: 'root', nodeId });
  const e1 = { type: 'run.started', graph: 'old', request: { input: 'hi' }, ...envelope(1, 1000, null) };
  const e2 = Object.assign({ type: 'node.started', nodeId: 'a', step: 1, request: { input: 'hi' } }, envelope(2, 1001, 'a'));
  const e3 = Object.assign({ type: 'node.completed', nodeId: 'a', step: 1, result: null, durationMs: 1, delta: null }, envelope(3, 1002, 'a'));
  const e4 = { type: 'edge.traversed', from: 'a', to: 'END', kind: 'end', ...envelope(4, 1003, 'a') };
  const e5 = { type: 'custom', seq: 5, at: 1004, note: 'an item in the [seq, type, at, data] shape' };
  const rows = [
    { seq: 1, type: 'run.started', at: 1000, data: JSON.stringify(e1) },
    { seq: 3, type: 'events', at: 1002, data: JSON.stringify([e2, e3]) },
    { seq: 5, type: 'events', at: 1004, data: JSON.stringify([e4, [5, 'custom', 1004, e5]]) },
  ];
  const events: StoredEvent[] = [e1, e2, e3, e4].map((data) => ({ runId, seq: data.seq, type: data.type, at: data.at, data }));
  events.push({ runId, seq: 5, type: 'custom', at: 1004, data: e5 });
  return { rows, events };
}

describe('rows written before the event log format', () => {
  it('still read, beside rows written now (SQLite)', async () => {
    const t: StoreTarget = sqliteTarget();
    try {
      const { rows, events } = oldRows('old-run');
      await (t.store as SqliteRunStore).close();
      const db = new Database(t.env.SWITCHBOARD_DB!);
      const insert = db.prepare('INSERT INTO events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)');
      for (const r of rows) insert.run('old-run', r.seq, r.type, r.at, r.data);
      db.close();
      const store = new SqliteRunStore({ file: t.env.SWITCHBOARD_DB });
      try {
        expect(await store.listEvents('old-run')).toEqual(events);
        expect(await store.listEvents('old-run', { afterSeq: 2, limit: 2 })).toEqual(events.slice(2, 4));
        // A new run's log in the new format next to it.
        const recorder = new MemoryRecorder();
        const runId = await graphRun(store, recorder);
        await expectSameEvents(store, runId, recorder.events);
      } finally {
        await store.close();
      }
    } finally {
      await t.close().catch(() => undefined);
    }
  });

  it('still read (PostgreSQL)', async () => {
    const schema = `t_oldrows_${process.pid}_${Date.now().toString(36)}`;
    const store = new PostgresRunStore({ url: PG_URL, schema, max: 2 });
    try {
      expect(await store.listEvents('none')).toEqual([]); // creates the schema
      const { rows, events } = oldRows('old-run');
      const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` });
      await client.connect();
      try {
        for (const r of rows) await client.query('INSERT INTO events (run_id, seq, type, at, data) VALUES ($1, $2, $3, $4, $5)', ['old-run', r.seq, r.type, r.at, r.data]);
      } finally {
        await client.end();
      }
      expect(await store.listEvents('old-run')).toEqual(events);
      expect(await store.listEvents('old-run', { afterSeq: 3 })).toEqual(events.slice(3));
    } finally {
      await store.close();
    }
  });
});

describe('the event log format', () => {
  it('writes a run id, trace id and span ids once per row, not once per event', async () => {
    const t = sqliteTarget();
    try {
      const recorder = new MemoryRecorder();
      const runId = await graphRun(t.store, recorder);
      const traceId = recorder.events[0]!.traceId;
      const db = new Database(t.env.SWITCHBOARD_DB!, { readonly: true });
      const rows = db.prepare('SELECT data FROM events WHERE run_id = ?').pluck().all(runId) as string[];
      db.close();
      const count = (text: string, part: string) => text.split(part).length - 1;
      const all = rows.join('\n');
      // Once in each row's first event, and inside the few events stored whole (the two a run emits
      // before its row exists, and the node event with fields named like the envelope's).
      expect(count(all, traceId)).toBeLessThanOrEqual(rows.length + 3);
      // The run id: in the final run of run.completed and in the three events stored whole, in no envelope.
      expect(count(all, `"runId":"${runId}"`)).toBeLessThanOrEqual(4);
      expect(count(all, `"r":"${runId}"`)).toBe(0);
      expect(rows.length).toBeLessThan(recorder.events.length / 3);
    } finally {
      await t.close();
    }
  });
});
