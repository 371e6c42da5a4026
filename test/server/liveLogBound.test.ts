import { afterAll, describe, expect, it } from 'vitest';
import { END, StateGraph, toEventJson } from '../../src/index.js';
import { Gates } from '../fixtures/workbenchGraphs.js';
import { SseReader } from './sseClient.js';
import { testWorkbench } from './workbenchTarget.js';

const STEPS = 3000;
/** The live log's length, read by the loop at some of its steps (what the server holds for the leg then). */
const logLengths: number[] = [];
let readLog: () => number = () => 0;

/**
 * One node looping STEPS times (three events a step, about 1 KB of state each), yielding every 10th
 * step; it waits at its gates `mid` (step 1500) so a client can join halfway, and `end` before its last.
 */
function longGraph(gates: Gates): StateGraph {
  return new StateGraph({ name: 'long', maxSteps: STEPS + 1 })
    .addNode('a', async (ctx) => {
      const n = (ctx.get<number>('n') ?? 0) + 1;
      ctx.put('n', n);
      ctx.put('note', `${n} ${'some words '.repeat(90)}`);
      if (n % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
      if (n % 500 === 0) logLengths.push(readLog());
      if (n === STEPS / 2) await gates.wait('mid');
      if (n === STEPS - 1) await gates.wait('end');
      return null;
    })
    .start('a')
    .addConditionalEdges('a', (ctx) => ((ctx.get<number>('n') ?? 0) < STEPS ? 'again' : 'done'), { again: 'a', done: END });
}

const gates = new Gates();
const wb = testWorkbench({ graphs: [longGraph(gates)], heartbeatMs: 60_000, pollMs: 20 });
afterAll(() => wb.shutdown());

describe('the live log of a long leg', () => {
  it('keeps the recent events only, once the store holds the older ones, and every client still gets every event once', async () => {
    const { runId } = (await wb.json('/api/runs', { method: 'POST', json: { graph: 'long', message: 'go' } })).body as { runId: string };
    readLog = () => wb.runs.hub.liveLog(runId)?.length ?? -1;
    const first = new SseReader(await wb.app.request(`/api/runs/${runId}/stream`));
    const firstDone = first.until((m) => m.event === 'end');
    // Halfway: a client joins from the start (the store, then the live log), another from seq 100.
    while (logLengths.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    const joined = new SseReader(await wb.app.request(`/api/runs/${runId}/stream`));
    const resumed = new SseReader(await wb.app.request(`/api/runs/${runId}/stream`, { headers: { 'last-event-id': '100' } }));
    const joinedDone = joined.until((m) => m.event === 'end');
    const resumedDone = resumed.until((m) => m.event === 'end');
    gates.open('mid');
    gates.open('end');
    const [a, b, c] = await Promise.all([firstDone, joinedDone, resumedDone]);
    await wb.runs.drain();

    // At steps 500, 1000, … the log held about the last 1,024 to 2,048 events, not all of them (3 a step).
    expect(logLengths).toHaveLength(STEPS / 500);
    for (const length of logLengths) expect(length).toBeLessThan(2048 + 3);
    const stored = (await wb.store.listEvents(runId, { limit: 1_000_000 })).map((e) => `${e.seq}|${JSON.stringify(toEventJson(e.data))}`);
    expect(stored.length).toBeGreaterThan(3 * STEPS);
    const frames = (messages: Array<{ id?: string; data: string }>) => messages.filter((m) => m.id !== undefined).map((m) => `${m.id}|${m.data}`);
    expect(frames(a)).toEqual(stored);
    expect(frames(b)).toEqual(stored);
    expect(frames(c)).toEqual(stored.slice(100));
    expect(a.at(-1)).toEqual({ event: 'end', data: '{"status":"completed"}' });
    expect((await wb.json('/api/health')).body.subscribers).toBe(0);
  }, 50_000);
});
