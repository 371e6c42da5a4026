import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AnalyticsError,
  JsonlTransitionRecorder,
  MemoryRunStore,
  StateGraph,
  SwitchboardError,
  TransitionColumns,
  TransitionRecorder,
  TransitionTracker,
  analyzeTransitions,
  readTransitionsFile,
  storedTransitions,
  type WorkflowContext,
} from '../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-recorder-options-'));
  dirs.push(dir);
  return dir;
};

/** What `make` threw: an AnalyticsError of `code` whose message names `field` (and says what it got). */
function refused(make: () => unknown, code: string, ...parts: string[]): AnalyticsError {
  let thrown: unknown = null;
  try {
    make();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(AnalyticsError);
  expect(thrown).toBeInstanceOf(SwitchboardError);
  const error = thrown as AnalyticsError;
  expect(error.code).toBe(code);
  expect(error.fault).toBe('user');
  for (const part of parts) expect(error.message).toContain(part);
  return error;
}

const loop = () =>
  new StateGraph({ name: 'opts', maxSteps: 5 })
    .addNode('a', (ctx: WorkflowContext) => {
      ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
      return null;
    })
    .start('a')
    .addConditionalEdges('a', (ctx) => ((ctx.get<number>('n') ?? 0) >= 3 ? '__end__' : 'a'));

describe('transition recorders refuse options they cannot use, when they are made', () => {
  it.each([
    [{ onTransition: 5 }, '.onTransition', 'received 5'],
    [{ onTransiton: () => undefined }, '.onTransiton', 'no such option (onTransition, costOf, prices)'],
    [{ costOf: 'gpt-4o' }, '.costOf', 'received "gpt-4o"'],
    [{ prices: { 'gpt-x': { input: -1, output: 1 } } }, '.prices["gpt-x"]', 'finite numbers ≥ 0'],
    [{ prices: { 'gpt-x': { input: '1', output: 1 } } }, '.prices["gpt-x"]', 'received an object'],
    [{ prices: { '': { input: 1, output: 1 } } }, '.prices[""]', 'USD per million tokens'],
    [{ prices: [] }, '.prices', 'an object of { input, output } prices by model id'],
    [null, 'new TransitionRecorder(options):', 'received null'],
    ['keep', 'new TransitionRecorder(options):', 'received "keep"'],
  ])('TransitionRecorder(%j)', (options, field, says) => {
    refused(() => new TransitionRecorder(options as never), 'invalid_recorder_options', field, says);
  });

  it.each([
    [{ batch: 0 }, '.batch', 'received 0'],
    [{ batch: 2.5 }, '.batch', 'a whole number of lines ≥ 1'],
    [{ batch: '100' }, '.batch', 'received "100"'],
    [{ batch: Number.NaN }, '.batch', 'received NaN'],
    [{ flushMs: -1 }, '.flushMs', 'received -1'],
    [{ flushMs: Number.POSITIVE_INFINITY }, '.flushMs', 'received Infinity'],
    [{ flushMs: 2 ** 31 }, '.flushMs', 'the longest timer Node keeps'],
    [{ flush: 10 }, '.flush', 'no such option (batch, flushMs, costOf, prices)'],
    [{ costOf: {} }, '.costOf', 'a function'],
    [{ prices: { m: { input: 1 } } }, '.prices["m"]', 'USD per million tokens'],
  ])('JsonlTransitionRecorder(file, %j), leaving no file behind', (options, field, says) => {
    const dir = tempDir();
    refused(() => new JsonlTransitionRecorder(join(dir, 't.jsonl'), options as never), 'invalid_recorder_options', field, says);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('JsonlTransitionRecorder refuses a file that is no path, or a directory, and names a file to use instead', () => {
    refused(() => new JsonlTransitionRecorder(''), 'invalid_recorder_options', 'non-empty string', 'received ""');
    refused(() => new JsonlTransitionRecorder('   '), 'invalid_recorder_options', 'non-empty string');
    refused(() => new JsonlTransitionRecorder(7 as never), 'invalid_recorder_options', 'received 7');
    const dir = tempDir();
    refused(() => new JsonlTransitionRecorder(dir), 'invalid_recorder_options', `not the directory ${dir}`, join(dir, 'transitions.jsonl'));
  });

  it('TransitionTracker refuses what is neither a function nor columns, and bad pricing, but takes wider options', () => {
    refused(() => new TransitionTracker(null as never), 'invalid_recorder_options', 'new TransitionTracker(emit)', 'received null');
    refused(() => new TransitionTracker({ add: 1 } as never), 'invalid_recorder_options', 'a function that takes each record');
    refused(() => new TransitionTracker(() => undefined, { prices: { m: { input: 1, output: -2 } } }), 'invalid_recorder_options', '.prices["m"]');
    refused(() => new TransitionTracker(() => undefined, { costOf: 3 } as never), 'invalid_recorder_options', '.costOf');
    // storedTransitions hands its own options (graph, since) on: keys beyond pricing are not the tracker's to refuse.
    expect(() => new TransitionTracker(new TransitionColumns(), { graph: 'g', since: 0 } as never)).not.toThrow();
  });

  it('the edges of what is allowed are taken, and record as before', async () => {
    const dir = tempDir();
    const file = join(dir, 'nested', 't.jsonl');
    const seen: unknown[] = [];
    const recorders = [
      new JsonlTransitionRecorder(file, { batch: 1, flushMs: 0, prices: { 'house-model': { input: 0, output: 0 } }, costOf: () => undefined }),
      new TransitionRecorder({ onTransition: (record) => seen.push(record), prices: {} }),
      new TransitionRecorder({}),
    ] as const;
    const run = await loop().run('go', { recorders: [...recorders] });
    expect(run.status).toBe('completed');
    expect(run.callbackErrors ?? []).toEqual([]);
    expect(readTransitionsFile(file)).toEqual(seen);
    expect(recorders[2].records).toEqual(seen);
    expect(seen).toHaveLength(4);
    expect(new JsonlTransitionRecorder(join(dir, 'max.jsonl'), { flushMs: 2 ** 31 - 1 }).error).toBeNull();
  });
});

describe('a costOf that returns no price', () => {
  it('stops the recorder with a CallbackError naming costOf and what it returned, and the file it wrote still reads back', async () => {
    const { Agent, AgentNode } = await import('../../src/index.js');
    const { ScriptedModel } = await import('../../src/testing/index.js');
    const graph = () =>
      new StateGraph({ name: 'priced' })
        .addNode('first', () => 'plain')
        .addNode('ask', new AgentNode(new Agent({ name: 'a', instructions: 'i', model: new ScriptedModel([{ text: 'hi', usage: { inputTokens: 11, outputTokens: 4, totalTokens: 15 } }]) })))
        .start('first')
        .addEdge('first', 'ask');
    for (const [returned, shown] of [[Number.NaN, 'NaN'], [-0.5, '-0.5'], [Number.POSITIVE_INFINITY, 'Infinity'], ['0.1', '"0.1"']] as const) {
      const file = join(tempDir(), 't.jsonl');
      const costOf = () => returned as never;
      const kept = new TransitionRecorder({ costOf });
      const jsonl = new JsonlTransitionRecorder(file, { costOf, batch: 1 });
      const run = await graph().run('go', { recorders: [kept, jsonl] });
      expect(run.status).toBe('completed');
      expect(run.callbackErrors).toHaveLength(2);
      for (const error of run.callbackErrors ?? []) {
        expect(error.message).toContain(`costOf("scripted", 11, 4) returned ${shown}`);
        expect(error.message).toContain('USD as a finite number ≥ 0, or undefined');
      }
      // What was recorded before is whole: no record carries the bad cost.
      expect(readTransitionsFile(file).map((r) => `${r.from}>${r.to}`)).toEqual(['__start__>first', 'first>ask']);
      // In batches too: the lines waiting when the recorder was stopped are written then, not by a later timer.
      const batched = join(tempDir(), 'batched.jsonl');
      const waited = await graph().run('go', { recorders: [new JsonlTransitionRecorder(batched, { costOf, flushMs: 60_000 })] });
      expect(waited.callbackErrors).toHaveLength(1);
      expect(readTransitionsFile(batched).map((r) => `${r.from}>${r.to}`)).toEqual(['__start__>first', 'first>ask']);
      expect(kept.records.map((r) => r.costUsd)).toEqual([undefined, undefined]);
      expect(() => analyzeTransitions(kept.records)).not.toThrow();
    }
  });
});

describe('readTransitionsFile says what it cannot read', () => {
  it('a missing file, a directory and a path that is no string are AnalyticsError unreadable_file', () => {
    const dir = tempDir();
    const missing = join(dir, 'none.jsonl');
    refused(() => readTransitionsFile(missing), 'unreadable_file', missing, 'no such file', 'check the path');
    refused(() => readTransitionsFile(dir), 'unreadable_file', dir);
    refused(() => readTransitionsFile(undefined as never), 'unreadable_file', 'received undefined');
    expect(existsSync(missing)).toBe(false);
  });

  it('an empty file holds no records', () => {
    const file = join(tempDir(), 'empty.jsonl');
    writeFileSync(file, '');
    expect(readTransitionsFile(file)).toEqual([]);
  });

  it('a file an editor saved with a byte-order mark, CRLF line ends and blank lines reads back the same', () => {
    const record = { runId: 'r', workflow: 'w', from: '__start__', to: 'a', at: 1, durationMs: 0, tokens: 0, nodeType: 'start', label: 'start' };
    const file = join(tempDir(), 'edited.jsonl');
    writeFileSync(file, `\uFEFF${JSON.stringify(record)}\r\n\r\n${JSON.stringify({ ...record, from: 'a', to: '__end__:completed', label: 'end' })}\r\n`);
    expect(readTransitionsFile(file).map((r) => `${r.from}>${r.to}`)).toEqual(['__start__>a', 'a>__end__:completed']);
  });
});

describe('storedTransitions refuses options that would silently match nothing', () => {
  it.each([
    [{ since: '2026-12-01' }, '.since', "new Date('2026-12-01')"],
    [{ since: new Date('not a date') }, '.since', 'a valid Date'],
    [{ since: Number.NaN }, '.since', 'received NaN'],
    [{ graph: 7 }, '.graph', 'received 7'],
    [{ limit: 0 }, '.limit', 'received 0'],
    [{ grpah: 'support' }, '.grpah', 'no such option (graph, since, limit, costOf, prices)'],
    [{ prices: { m: { input: -1, output: 0 } } }, '.prices["m"]', 'finite numbers ≥ 0'],
  ])('%j', async (options, field, says) => {
    const store = new MemoryRunStore();
    const error = await storedTransitions(store, options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnalyticsError);
    expect((error as AnalyticsError).code).toBe('invalid_recorder_options');
    expect((error as AnalyticsError).message).toContain(`storedTransitions(store, options)${field}`);
    expect((error as AnalyticsError).message).toContain(says);
  });

  it('a Date, epoch milliseconds and a limit are taken', async () => {
    const store = new MemoryRunStore();
    await loop().run('go', { store });
    const all = await storedTransitions(store, { graph: 'opts', since: new Date(0), limit: 5 });
    expect(all).toHaveLength(4);
    expect(await storedTransitions(store, { since: Date.now() + 60_000 })).toEqual([]);
  });
});
