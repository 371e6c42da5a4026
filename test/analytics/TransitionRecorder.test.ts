import { mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  AgentNode,
  analyzeTransitions,
  Coordinator,
  END,
  humanNode,
  JsonlTransitionRecorder,
  MemoryRecorder,
  MemoryRunStore,
  readTransitionsFile,
  resumeRun,
  StateGraph,
  step,
  storedTransitions,
  TransitionRecorder,
  Workflow,
  type TransitionRecord,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

/** The fields that do not depend on the clock. */
const hops = (records: readonly TransitionRecord[]) => records.map((r) => `${r.from}>${r.to}:${r.label}:${r.nodeType}`);

/** A clock that moves 5 ms at every reading: durations and times are exact. */
function steppingClock() {
  let t = 1_000;
  return { now: () => (t += 5) };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('TransitionRecorder', () => {
  it('records a graph run from its start through its routes to the status it ended with', async () => {
    let passes = 0;
    const graph = new StateGraph({ name: 'loop', maxSteps: 5 })
      .addNode('draft', () => ({ outputText: 'd', usage: { inputTokens: 3, outputTokens: 4 } }))
      .addNode('review', () => 'r')
      .start('draft')
      .addEdge('draft', 'review')
      .addConditionalEdges('review', () => (passes++ < 1 ? 'again' : 'done'), { again: 'draft', done: END });
    const recorder = new TransitionRecorder();
    const run = await graph.run('go', { recorders: [recorder], clock: steppingClock() });
    expect(run.status).toBe('completed');
    expect(hops(recorder.records)).toEqual([
      '__start__>draft:start:start',
      'draft>review:transition[0]:node',
      'review>draft:again:node',
      'draft>review:transition[0]:node',
      'review>__end__:completed:done:node',
    ]);
    const [start, first] = recorder.records;
    expect(start).toMatchObject({ runId: run.runId, workflow: 'loop', durationMs: 0, tokens: 0, path: 'root' });
    expect(first).toMatchObject({ runId: run.runId, workflow: 'loop', tokens: 7 });
    expect(first!.costUsd).toBeUndefined();
    // Every record's time is the clock's; each node's duration is what its node.completed said.
    expect(recorder.records.every((r) => r.at > 1_000 && r.durationMs >= 0)).toBe(true);
    expect(first!.durationMs).toBeGreaterThan(0);
  });

  it('records the fuse and a failing node as the run ends', async () => {
    const loop = new StateGraph({ name: 'spin', maxSteps: 3 }).addNode('a', () => 'x').start('a').addEdge('a', 'a');
    const fuse = new TransitionRecorder();
    await loop.run('go', { recorders: [fuse] });
    expect(hops(fuse.records)).toEqual(['__start__>a:start:start', 'a>a:transition[0]:node', 'a>a:transition[0]:node', 'a>__end__:max-steps:max-steps:node']);
    const failing = new StateGraph({ name: 'boom' }).addNode('a', () => 'x').addNode('b', () => {
      throw new Error('down');
    }).start('a').addEdge('a', 'b');
    const failed = new TransitionRecorder();
    await failing.run('go', { recorders: [failed] });
    expect(hops(failed.records)).toEqual(['__start__>a:start:start', 'a>b:transition[0]:node', 'b>__end__:failed:failed:node']);
  });

  it('records a spent budget as the end of the run, or as the hop to the graph’s onBudgetExceeded node', async () => {
    const graph = () => new StateGraph({ name: 'spend', maxSteps: 50 }).addNode('a', () => 'x').addNode('b', () => 'y').addNode('person', () => 'handed over').start('a').addEdge('a', 'b').addEdge('b', 'a');
    const stopped = new TransitionRecorder();
    expect((await graph().run('go', { budget: { maxIterations: 3 }, recorders: [stopped] })).status).toBe('budget-exceeded');
    expect(hops(stopped.records).at(-1)).toBe('a>__end__:budget-exceeded:budget:maxIterations:node');
    const handed = new TransitionRecorder();
    expect((await graph().onBudgetExceeded('person').run('go', { budget: { maxIterations: 3 }, recorders: [handed] })).status).toBe('completed');
    expect(hops(handed.records).slice(-2)).toEqual(['a>person:budget:maxIterations:node', 'person>__end__:completed:end:node']);
  });

  it('records a typed workflow the same way', async () => {
    const wf = Workflow.define<string>('typed').step(step('one', (_c, s: string) => `${s}1`)).then(step('two', (_c, s: string) => `${s}2`));
    const recorder = new TransitionRecorder();
    const run = await wf.run('x', { recorders: [recorder] });
    expect(run.status).toBe('completed');
    expect(recorder.records.map((r) => `${r.workflow}:${r.from}>${r.to}`)).toEqual(['typed:__start__>one', 'typed:one>two', 'typed:two>finish', 'typed:finish>__end__:completed']);
  });

  it('records specialists under their own run id and graph, and their coordinator node as one', async () => {
    const specialist = (name: string) => new StateGraph({ name }).addNode('look', () => 'seen').addNode('say', () => 'said').start('look').addEdge('look', 'say');
    const coordinator = new Coordinator({ specialists: { rag: specialist('rag'), tool: specialist('tool') } });
    const parent = new StateGraph({ name: 'parent' })
      .addNode('plan', coordinator.planNode(() => [{ kind: 'rag', input: 'a' }, { kind: 'tool', input: 'b' }, { kind: 'rag', input: 'c' }]))
      .addNode('dispatch', coordinator.dispatchNode())
      .start('plan')
      .addEdge('plan', 'dispatch');
    const recorder = new TransitionRecorder();
    const run = await parent.run('go', { recorders: [recorder] });
    const byRun = new Map<string, string[]>();
    for (const r of recorder.records) byRun.set(r.runId, [...(byRun.get(r.runId) ?? []), `${r.workflow}:${r.from}>${r.to}`]);
    expect(byRun.get(run.runId)).toEqual(['parent:__start__>plan', 'parent:plan>dispatch', 'parent:dispatch>__end__:completed']);
    expect(byRun.get(`${run.runId}/rag[1]`)).toEqual(['rag:__start__>look', 'rag:look>say', 'rag:say>__end__:completed']);
    expect(byRun.get(`${run.runId}/tool[2]`)).toEqual(['tool:__start__>look', 'tool:look>say', 'tool:say>__end__:completed']);
    expect(byRun.get(`${run.runId}/rag[3]`)).toHaveLength(3);
    expect(recorder.records.find((r) => r.from === 'dispatch')!.nodeType).toBe('coordinator');
    expect(recorder.records.find((r) => r.runId.endsWith('/tool[2]'))!.path).toBe('root/tool[2]');
    // A stored run keeps its specialists' events in its own log: the same records come back from it.
    const store = new MemoryRunStore();
    const storedLive = new TransitionRecorder();
    await parent.run('go', { store, recorders: [storedLive] });
    expect(storedLive.records).toHaveLength(12);
    expect(await storedTransitions(store)).toEqual(storedLive.records);
  });

  it('takes tokens from model usage, streamed or not, and prices them when asked', async () => {
    const graph = () =>
      new StateGraph({ name: 'agent' })
        .addNode('ask', new AgentNode(new Agent({ name: 'a', instructions: 'i', model: new ScriptedModel([{ text: 'hi', usage: { inputTokens: 11, outputTokens: 4, totalTokens: 15 } }]) })))
        .start('ask');
    const plain = new TransitionRecorder();
    await graph().run('go', { recorders: [plain] });
    expect(plain.records.map((r) => [r.from, r.tokens])).toEqual([
      ['__start__', 0],
      ['ask', 15],
    ]);
    const streamed = new TransitionRecorder({ costOf: (model, input, output) => (model === 'scripted' ? input * 0.001 + output * 0.002 : undefined) });
    for await (const _ of graph().stream('go', { recorders: [streamed] })) void _;
    const last = streamed.records.at(-1)!;
    expect(last).toMatchObject({ from: 'ask', tokens: 15, nodeType: 'agent' });
    expect(last.costUsd).toBeCloseTo(0.019, 12);
    // By default the price table budgets use: your own entries first (USD per million tokens).
    const priced = new TransitionRecorder({ prices: { scripted: { input: 1, output: 2 } } });
    for await (const _ of graph().stream('go', { recorders: [priced] })) void _;
    expect(priced.records.at(-1)!.costUsd).toBeCloseTo((11 * 1 + 4 * 2) / 1_000_000, 15);
    const free = new TransitionRecorder();
    for await (const _ of graph().stream('go', { recorders: [free] })) void _;
    expect(free.records.at(-1)!.costUsd).toBe(0);
  });

  it('follows a stored run across its wait and resume, and reads the same records back from the store', async () => {
    const store = new MemoryRunStore();
    const graph = new StateGraph({ name: 'ask' })
      .addNode('draft', () => 'd')
      .addNode('approve', humanNode({ reason: 'ok?', reply: z.string() }))
      .addNode('send', () => 's')
      .start('draft')
      .addEdge('draft', 'approve')
      .addEdge('approve', 'send');
    const live = new TransitionRecorder();
    const waiting = await graph.run('go', { store, recorders: [live] });
    expect(waiting.status).toBe('waiting');
    expect(hops(live.records).at(-1)).toBe('approve>__end__:waiting:waiting:human');
    const done = await resumeRun(graph, waiting.runId, { reply: 'yes' }, { store, recorders: [live] });
    expect(done.status).toBe('completed');
    expect(hops(live.records)).toEqual([
      '__start__>draft:start:start',
      'draft>approve:transition[0]:node',
      'approve>__end__:waiting:waiting:human',
      'approve>send:transition[0]:human',
      'send>__end__:completed:end:node',
    ]);
    const stored = await storedTransitions(store, { graph: 'ask' });
    expect(stored).toEqual(live.records);
    const a = analyzeTransitions(stored);
    expect(a.endProbabilities).toEqual({ completed: 1 });
    expect(await storedTransitions(store, { graph: 'other' })).toEqual([]);
    expect(await storedTransitions(store, { since: Date.now() + 60_000 })).toEqual([]);
  });

  it('writes records as JSON lines that read back equal, and names a damaged line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-transitions-'));
    dirs.push(dir);
    const file = join(dir, 'sub', 't.jsonl');
    const graph = new StateGraph({ name: 'two' }).addNode('a', () => 'x').addNode('b', () => 'y').start('a').addEdge('a', 'b');
    const jsonl = new JsonlTransitionRecorder(file);
    const memory = new TransitionRecorder();
    await graph.run('go', { recorders: [jsonl, memory] });
    await graph.run('again', { recorders: [jsonl, memory] });
    expect(readTransitionsFile(file)).toEqual(memory.records);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(6);
    // A last line cut short by a crash is skipped; a damaged line before it is refused.
    appendFileSync(file, '{"runId":"x","from');
    expect(readTransitionsFile(file)).toHaveLength(6);
    writeFileSync(file, `{"runId":1}\n${readFileSync(file, 'utf8')}`);
    expect(() => readTransitionsFile(file)).toThrowError(/line 1 is not a TransitionRecord/);
  });

  it('reads events as the run made them: a run with only transition recorders redacts nothing', async () => {
    // A node result whose getter counts reads: redaction walks the result, the transition recorder does not.
    let reads = 0;
    const result = {
      get outputText() {
        reads += 1;
        return 'x';
      },
    };
    const graph = new StateGraph({ name: 'raw' }).addNode('a', () => result).start('a');
    await graph.run('go', { recorders: [new TransitionRecorder()] });
    const quiet = reads;
    await graph.run('go', { recorders: [new TransitionRecorder(), new MemoryRecorder()] });
    expect(reads).toBeGreaterThan(quiet);
  });
});
