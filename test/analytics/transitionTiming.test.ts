import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { END, JsonlTransitionRecorder, MemoryRunStore, StateGraph, TransitionRecorder, Workflow, analyzeTransitions, readTransitionsFile, step, storedTransitions, type TransitionRecord, type WorkflowContext } from '../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A clock that counts its readings and moves 1 ms at each, so every reading is a distinct time. */
class CountingClock {
  readings = 0;
  t = 1_000;
  now = (): number => {
    this.readings += 1;
    return (this.t += 1);
  };
}

const STEPS = 40;
function loopGraph() {
  const inc = (ctx: WorkflowContext) => {
    ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
    return null;
  };
  return new StateGraph({ name: 'timed', maxSteps: STEPS + 1 })
    .addNode('a', inc)
    .addNode('b', inc)
    .start('a')
    .addConditionalEdges('a', (ctx) => ((ctx.get<number>('n') ?? 0) >= STEPS ? END : 'b'))
    .addTransition('b', 'a');
}

describe('transition records share the run clock readings', () => {
  it('a graph loop with a TransitionRecorder reads the clock no more often than one without, but for the start and the end', async () => {
    const plain = new CountingClock();
    await loopGraph().run('go', { clock: plain });
    const recorded = new CountingClock();
    const recorder = new TransitionRecorder();
    const run = await loopGraph().run('go', { clock: recorded, recorders: [recorder] });
    expect(run.status).toBe('completed');
    expect(recorder.records).toHaveLength(run.steps + 1);
    // The first node's start and the run's end are read for the records; every step in between is timed
    // by the readings the run takes anyway (a node's start and end).
    expect(recorded.readings - plain.readings).toBeLessThanOrEqual(2);
  });

  it('times each edge by the end of the step before it, so times never go backwards and durations add up', async () => {
    const recorder = new TransitionRecorder();
    await loopGraph().run('go', { clock: new CountingClock(), recorders: [recorder] });
    const records = recorder.records;
    for (let i = 1; i < records.length; i++) {
      expect(records[i]!.at).toBeGreaterThanOrEqual(records[i - 1]!.at);
      // The step left by record i began when record i-1 was taken, and lasted durationMs of the run's clock.
      if (i < records.length - 1) expect(records[i]!.at - records[i - 1]!.at).toBeGreaterThanOrEqual(records[i]!.durationMs);
    }
    expect(records.slice(1, -1).every((r) => r.durationMs === 1)).toBe(true);
  });

  it('a typed workflow loop records as many transitions with the same clock economy', async () => {
    const flow = Workflow.define<number>('count').repeatUntil((_c, n) => n >= 10).step(step('inc', (_c, n: number) => n + 1)).end();
    const plain = new CountingClock();
    await flow.run(0, { clock: plain });
    const recorded = new CountingClock();
    const recorder = new TransitionRecorder();
    const run = await flow.run(0, { clock: recorded, recorders: [recorder] });
    expect(run.output).toBe(10);
    expect(recorder.records.length).toBeGreaterThan(20);
    expect(recorded.readings - plain.readings).toBeLessThanOrEqual(2);
  });
});

describe('JsonlTransitionRecorder encodes when it writes', () => {
  it('a clock that steps back (a wall clock set back mid-run) gives steps of 0 ms, which every reader takes, live and stored', async () => {
    let t = 1_000_000;
    const clock = { now: () => (t -= 7) };
    const dir = mkdtempSync(join(tmpdir(), 'sb-clock-back-'));
    dirs.push(dir);
    const file = join(dir, 't.jsonl');
    const kept = new TransitionRecorder();
    const store = new MemoryRunStore();
    const graph = new StateGraph({ name: 'back' }).addNode('a', () => 'a').addNode('b', () => 'b').start('a').addEdge('a', 'b').addEdge('b', END);
    expect((await graph.run('go', { clock, store, recorders: [kept, new JsonlTransitionRecorder(file)] })).status).toBe('completed');
    expect(kept.records.map((r) => r.durationMs)).toEqual([0, 0, 0]);
    expect(readTransitionsFile(file)).toEqual(kept.records);
    expect(analyzeTransitions(kept.records).endProbabilities).toEqual({ completed: 1 });
    // The stored events keep what the clock said; the records made from them do not go below 0.
    const stored = await storedTransitions(store);
    expect(stored.map((r) => r.durationMs)).toEqual([0, 0, 0]);
    expect(analyzeTransitions(stored).stats['a']!.meanDurationMs).toBe(0);
  });

  it('writes lines byte for byte equal to JSON.stringify of the records with awkward strings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-jsonl-encode-'));
    dirs.push(dir);
    const file = join(dir, 't.jsonl');
    const memory = new TransitionRecorder();
    const odd = 'quote " back\\slash\nnew line \u2028 é 😀 \u0001';
    // Node and graph ids stay plain (they name machine states); the route key, the label, and the run id carry the odd text.
    const graph = new StateGraph({ name: 'odd', maxSteps: 9 })
      .addNode('n', () => ({ outputText: 'x', usage: { inputTokens: 3, outputTokens: 4 } }))
      .addNode('plain', () => null)
      .start('n')
      .addConditionalEdges('n', () => `key ${odd}`, { [`key ${odd}`]: 'plain' })
      .addEdge('plain', END);
    const jsonl = new JsonlTransitionRecorder(file, { batch: 2 });
    await graph.run('go', { recorders: [jsonl, memory], runId: `run ${odd}` });
    await graph.run('go', { recorders: [jsonl, new TransitionRecorder({ prices: {} })], runId: 'second' });
    expect(memory.records.some((r) => r.label === `key ${odd}` && r.costUsd === undefined)).toBe(true);
    const expected = memory.records.map((r: TransitionRecord) => `${JSON.stringify(r)}\n`).join('');
    expect(readFileSync(file, 'utf8').startsWith(expected)).toBe(true);
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(memory.records.length * 2);
  });
});
