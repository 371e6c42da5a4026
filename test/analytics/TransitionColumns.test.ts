import { describe, expect, it } from 'vitest';
import {
  Agent,
  AgentNode,
  END,
  MemoryRunStore,
  StateGraph,
  TransitionColumns,
  TransitionRecorder,
  TransitionTracker,
  humanNode,
  type TrackedEvent,
  type TransitionRecord,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

/** A clock that moves 5 ms at every reading: durations and times are exact. */
function steppingClock() {
  let t = 1_000;
  return { now: () => (t += 5) };
}

const priced = () =>
  new StateGraph({ name: 'priced', maxSteps: 6 })
    .addNode('ask', new AgentNode(new Agent({ name: 'a', instructions: 'i', model: new ScriptedModel([{ text: 'hi', usage: { inputTokens: 11, outputTokens: 4, totalTokens: 15 } }]) })))
    .addNode('note', () => ({ outputText: 'n', usage: { inputTokens: 2, outputTokens: 3 } }))
    .start('ask')
    .addEdge('ask', 'note')
    .addEdge('note', END);
const PRICES = { scripted: { input: 1, output: 2 } };

describe('TransitionColumns', () => {
  it('keeps the records a function would get, field for field and in the same key order, costUsd only where priced', async () => {
    const given: TransitionRecord[] = [];
    const events: TrackedEvent[] = [];
    await priced().run('go', { clock: steppingClock(), onEvent: (e) => events.push(e as unknown as TrackedEvent), recorders: [new TransitionRecorder({ onTransition: (r) => given.push(r), prices: PRICES })] });
    const columns = new TransitionColumns();
    const tracker = new TransitionTracker(columns, { prices: PRICES });
    for (const event of events) tracker.push(event);
    expect(columns.length).toBe(given.length);
    const kept = given.map((_, i) => columns.record(i));
    expect(kept).toEqual(given);
    expect(kept.map((r) => Object.keys(r))).toEqual(given.map((r) => Object.keys(r)));
    expect(kept[1]!.costUsd).toBeCloseTo((11 * 1 + 4 * 2) / 1_000_000, 15);
    expect('costUsd' in kept[0]!).toBe(false);
    expect(() => columns.record(given.length)).toThrow(/does not exist/);
  });

  it('grows past its first block and keeps every record', () => {
    const columns = new TransitionColumns();
    const run = { runId: 'r', workflow: 'w', path: 'root' };
    for (let i = 0; i < 1_000; i++) columns.add(run, `n${i}`, `n${i + 1}`, i, i / 2, i * 3, i % 2 === 0 ? undefined : i / 10, 'node', 'l');
    expect(columns.length).toBe(1_000);
    expect(columns.record(999)).toEqual({ runId: 'r', workflow: 'w', from: 'n999', to: 'n1000', at: 999, durationMs: 499.5, tokens: 2997, nodeType: 'node', label: 'l', path: 'root', costUsd: 99.9 });
    expect(columns.record(0)).not.toHaveProperty('costUsd');
  });
});

describe('TransitionRecorder.records', () => {
  it('is one array, brought up to date with each run when read', async () => {
    const graph = new StateGraph({ name: 'two', maxSteps: 3 }).addNode('a', () => 'x').addNode('b', () => 'y').start('a').addEdge('a', 'b').addEdge('b', END);
    const recorder = new TransitionRecorder();
    const records = recorder.records;
    expect(records).toEqual([]);
    await graph.run('go', { recorders: [recorder] });
    expect(recorder.records).toBe(records);
    expect(records.map((r) => `${r.from}>${r.to}`)).toEqual(['__start__>a', 'a>b', 'b>__end__:completed']);
    const first = records[0];
    await graph.run('again', { recorders: [recorder] });
    expect(recorder.records).toBe(records);
    expect(records).toHaveLength(6);
    expect(records[0]).toBe(first);
    expect(new Set(records.map((r) => r.runId)).size).toBe(2);
  });

  it('gives every run so far when first read after the runs, and keeps that array up to date from then on', async () => {
    const graph = new StateGraph({ name: 'two', maxSteps: 3 }).addNode('a', () => 'x').addNode('b', () => 'y').start('a').addEdge('a', 'b').addEdge('b', END);
    const recorder = new TransitionRecorder();
    await graph.run('one', { recorders: [recorder] });
    await graph.run('two', { recorders: [recorder] });
    const { records } = recorder;
    expect(records).toHaveLength(6);
    expect(new Set(records.map((r) => r.runId)).size).toBe(2);
    await graph.run('three', { recorders: [recorder] });
    // Not read through the recorder again: the run's end brought the array that was handed out up to date.
    expect(records).toHaveLength(9);
    expect(records.slice(6).map((r) => `${r.from}>${r.to}`)).toEqual(['__start__>a', 'a>b', 'b>__end__:completed']);
  });

  it('brings an array taken before a run up to date when the run ends, a waiting and a failing one too, without reading records again', async () => {
    const graph = new StateGraph({ name: 'two', maxSteps: 3 }).addNode('a', () => 'x').addNode('b', () => 'y').start('a').addEdge('a', 'b').addEdge('b', END);
    const recorder = new TransitionRecorder();
    // Taken once, before any run, and never read through the recorder again: compared after the runs.
    const { records } = recorder;
    await graph.run('go', { recorders: [recorder] });
    expect(records.map((r) => `${r.from}>${r.to}`)).toEqual(['__start__>a', 'a>b', 'b>__end__:completed']);
    const waits = new StateGraph({ name: 'waits' }).addNode('ask', humanNode({ reason: 'a reply' })).start('ask');
    const fails = new StateGraph({ name: 'fails' }).addNode('boom', () => { throw new Error('boom'); }).start('boom');
    expect((await waits.run('go', { recorders: [recorder], store: new MemoryRunStore() })).status).toBe('waiting');
    expect((await fails.run('go', { recorders: [recorder] })).status).toBe('failed');
    expect(records.map((r) => r.to).filter((to) => to.startsWith('__end__:'))).toEqual(['__end__:completed', '__end__:waiting', '__end__:failed']);
  });
});
