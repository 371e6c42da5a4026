import { afterAll, describe, expect, it } from 'vitest';
import { approvalGraph, Gates, gatedGraph, quickGraph } from '../fixtures/workbenchGraphs.js';
import { SseReader, seqs } from './sseClient.js';
import { testWorkbench } from './workbenchTarget.js';
import { toEventJson } from '../../src/index.js';

const gates = new Gates();
const wb = testWorkbench({ graphs: [gatedGraph(gates), quickGraph(), approvalGraph()], heartbeatMs: 20, pollMs: 20 });
afterAll(() => wb.shutdown());

const stream = async (runId: string, lastEventId?: number) =>
  new SseReader(await wb.app.request(`/api/runs/${runId}/stream`, lastEventId === undefined ? {} : { headers: { 'last-event-id': String(lastEventId) } }));

const start = async (graph: string, message = 'go') => (await wb.json('/api/runs', { method: 'POST', json: { graph, message } })).body.runId as string;

/** Resolves when the run's stored event log has at least `n` events (the server keeps running the leg meanwhile). */
async function untilStored(runId: string, n: number): Promise<void> {
  while ((await wb.store.listEvents(runId)).length < n) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('run event stream', () => {
  it('gives a client that disconnects and reconnects with Last-Event-ID every missed event exactly once', async () => {
    const runId = await start('gated');
    const first = await stream(runId);
    const before = await first.until((m) => Number(m.id) >= 2); // run.started, node.started a
    gates.open('a');
    before.push(...(await first.until((m) => JSON.parse(m.data).type === 'node.started'))); // … node.started b
    await first.close();
    const lastSeen = Math.max(...seqs(before));

    // While nobody listens: b and c run, and some of their events are not even checkpointed yet.
    gates.open('b');
    gates.open('c');
    await untilStored(runId, lastSeen + 6);

    const second = await stream(runId, lastSeen);
    const head = await second.until((m) => JSON.parse(m.data).type === 'node.started' && JSON.parse(m.data).nodeId === 'd');
    gates.open('d');
    const after = [...head, ...(await second.until((m) => m.event === 'end'))];
    expect(after.at(-1)).toMatchObject({ event: 'end', data: '{"status":"completed"}' });

    const stored = (await wb.store.listEvents(runId)).map((e) => e.seq);
    expect(seqs(after)[0]).toBe(lastSeen + 1);
    expect([...seqs(before), ...seqs(after)]).toEqual(stored);
    expect(stored).toEqual(stored.map((_, i) => i + 1));
    const types = after.filter((m) => m.id !== undefined).map((m) => JSON.parse(m.data) as { seq: number; type: string });
    expect(types.every((e, i) => e.seq === Number(after[i]!.id))).toBe(true);
    expect(types.at(-1)).toMatchObject({ type: 'run.completed' });
    expect((await wb.json('/api/health')).body.subscribers).toBe(0);
  });

  it('replays a finished run from the store, from the start or after any seq, then ends', async () => {
    const runId = await start('quick');
    await wb.runs.drain();
    const all = await (await stream(runId)).until((m) => m.event === 'end');
    const stored = (await wb.store.listEvents(runId)).map((e) => toEventJson(e.data));
    expect(all.filter((m) => m.id !== undefined).map((m) => JSON.parse(m.data))).toEqual(stored);
    const tail = await (await stream(runId, 5)).until((m) => m.event === 'end');
    expect(seqs(tail)).toEqual(stored.slice(5).map((e) => e.seq));
    const viaQuery = new SseReader(await wb.app.request(`/api/runs/${runId}/stream?lastEventId=${stored.length}`));
    expect(await viaQuery.until((m) => m.event === 'end')).toEqual([{ event: 'end', data: '{"status":"completed"}' }]);
    const bad = await wb.app.request(`/api/runs/${runId}/stream`, { headers: { 'last-event-id': 'soon' } });
    expect(bad.status).toBe(400);
  });

  it('keeps a waiting run open with heartbeats and carries on through the resume', async () => {
    const runId = await start('approval');
    const reader = await stream(runId);
    const waiting = await reader.until((m) => JSON.parse(m.data || '{}').type === 'run.completed');
    expect(waiting.map((m) => JSON.parse(m.data).type)).toContain('run.waiting');
    // Nothing happens for a while: the stream stays open and sends heartbeat comments.
    await new Promise((resolve) => setTimeout(resolve, 80));
    const resumed = await wb.json(`/api/runs/${runId}/resume`, { method: 'POST', json: { reply: 'yes' } });
    expect(resumed.status).toBe(202);
    const rest = await reader.until((m) => m.event === 'end');
    expect(reader.comments.filter((c) => c === 'heartbeat').length).toBeGreaterThan(0);
    expect(rest.filter((m) => m.id !== undefined).map((m) => JSON.parse(m.data).type)).toEqual([
      'run.resumed',
      'node.completed',
      'edge.traversed',
      'node.started',
      'node.completed',
      'edge.traversed',
      'run.completed',
    ]);
    expect([...seqs(waiting), ...seqs(rest)]).toEqual((await wb.store.listEvents(runId)).map((e) => e.seq));
  });

  it('ends the stream of a run cancelled while it waits, and of one cancelled while a node runs', async () => {
    const waitingRun = await start('approval');
    await wb.runs.drain();
    const reader = await stream(waitingRun);
    await reader.until((m) => JSON.parse(m.data || '{}').type === 'run.completed');
    await wb.json(`/api/runs/${waitingRun}/cancel`, { method: 'POST', json: {} });
    const rest = await reader.until((m) => m.event === 'end');
    expect(rest.map((m) => (m.event === 'end' ? m.data : JSON.parse(m.data).type))).toEqual(['run.cancelled', '{"status":"cancelled"}']);

    const other = new Gates();
    const busy = testWorkbench({ graphs: [gatedGraph(other)] });
    try {
      const { runId } = (await busy.json('/api/runs', { method: 'POST', json: { message: 'x' } })).body;
      const live = new SseReader(await busy.app.request(`/api/runs/${runId}/stream`));
      await live.until((m) => JSON.parse(m.data || '{}').type === 'node.started');
      await busy.json(`/api/runs/${runId}/cancel`, { method: 'POST', json: {} });
      const tail = await live.until((m) => m.event === 'end');
      expect(tail.map((m) => (m.event === 'end' ? m.data : JSON.parse(m.data).type))).toEqual(['node.cancelled', 'run.completed', '{"status":"cancelled"}']);
      await busy.runs.drain();
      // The history keeps the events the cancelled leg could no longer checkpoint.
      const replay = await new SseReader(await busy.app.request(`/api/runs/${runId}/stream`)).until((m) => m.event === 'end');
      expect(replay.map((m) => (m.event === 'end' ? 'end' : JSON.parse(m.data).type)).slice(-3)).toEqual(['node.cancelled', 'run.completed', 'end']);
    } finally {
      other.open('a');
      await busy.shutdown();
    }
  });
});
