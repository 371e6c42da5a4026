import { afterAll, describe, expect, it } from 'vitest';
import { RunManager, StateGraph, redactForOutput, toEventJson } from '../../src/index.js';
import { Gates } from '../fixtures/workbenchGraphs.js';
import { SseReader, type SseMessage } from './sseClient.js';
import { testWorkbench } from './workbenchTarget.js';

/**
 * `a → b → c`: `a` waits for its gate (so a client can follow the run from its start), `b` returns a
 * raw response holding a BigInt (a provider SDK's token count, say), which JSON.stringify refuses.
 */
function bigintGraph(gates: Gates): StateGraph {
  return new StateGraph({ name: 'bigint' })
    .addNode('a', async (_ctx, request) => {
      await gates.wait(String(request.input));
      return 'hello';
    })
    .addNode('b', () => ({ outputText: 'b', rawResponse: { tokens: 12n, nested: [{ big: -(2n ** 70n) }] } }))
    .addNode('c', () => 'c')
    .start('a')
    .addEdge('a', 'b')
    .addEdge('b', 'c');
}

const gates = new Gates();
const wb = testWorkbench({ graphs: [bigintGraph(gates)], heartbeatMs: 60_000, pollMs: 20 });
afterAll(() => wb.shutdown());

const typeOf = (m: SseMessage) => (JSON.parse(m.data || '{}') as { type?: string }).type;

describe('an event holding a BigInt', () => {
  it('is redacted to JSON: the BigInt becomes its decimal text', () => {
    const out = redactForOutput({ tokens: 12n, list: [1n], deep: { n: -(2n ** 70n) } }, []);
    expect(JSON.parse(JSON.stringify(out))).toEqual({ tokens: '12', list: ['1'], deep: { n: '-1180591620717411303424' } });
  });

  it('is stored and streamed live and to a late client, and the run keeps its whole event log', async () => {
    const { runId } = (await wb.json('/api/runs', { method: 'POST', json: { graph: 'bigint', message: 'live' } })).body as { runId: string };
    const live = new SseReader(await wb.app.request(`/api/runs/${runId}/stream`));
    const head = await live.until((m) => typeOf(m) === 'node.started');
    gates.open('live');
    const messages = [...head, ...(await live.until((m) => m.event === 'end'))];
    await wb.runs.drain();

    // The raw response cannot be stored in the run's snapshot: the run fails, naming it.
    const record = await wb.store.getRun(runId);
    expect(record?.status).toBe('failed');
    expect(record?.error).toMatchObject({ code: 'not_json' });
    expect(String(record?.error?.message)).toContain('rawResponse.tokens holds a bigint');

    // Its events are kept all the same, b's result with the BigInt as text.
    const stored = await wb.store.listEvents(runId);
    const types = stored.map((e) => e.type);
    expect(types.slice(0, 6)).toEqual(['run.started', 'node.started', 'node.completed', 'edge.traversed', 'node.started', 'node.completed']);
    expect(types.at(-1)).toBe('run.completed');
    const completedB = stored.find((e) => e.type === 'node.completed' && e.data.nodeId === 'b')!;
    expect(completedB.data.result).toEqual({ outputText: 'b', rawResponse: { tokens: '12', nested: [{ big: '-1180591620717411303424' }] } });
    const frames = stored.map((e) => `${e.seq}|${JSON.stringify(toEventJson(e.data))}`);

    // The live client got every one of them, and so does a client that comes after the run ended.
    expect(messages.filter((m) => m.id !== undefined).map((m) => `${m.id}|${m.data}`)).toEqual(frames);
    const late = await new SseReader(await wb.app.request(`/api/runs/${runId}/stream`)).until((m) => m.event === 'end');
    expect(late.filter((m) => m.id !== undefined).map((m) => `${m.id}|${m.data}`)).toEqual(frames);
    expect((await wb.json('/api/health')).body.subscribers).toBe(0);
  });

  it('is kept in the event log of a run with no server', async () => {
    const manager = new RunManager({ store: wb.store, graphs: [bigintGraph(gates)] });
    gates.open('bare');
    const run = await manager.start('bigint', 'bare');
    expect(run.status).toBe('failed');
    const stored = await wb.store.listEvents(run.runId);
    expect(stored.map((e) => e.type).slice(0, 6)).toEqual(['run.started', 'node.started', 'node.completed', 'edge.traversed', 'node.started', 'node.completed']);
    expect(stored.at(-1)?.type).toBe('run.completed');
  });
});
