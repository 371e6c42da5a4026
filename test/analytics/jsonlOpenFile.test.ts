import { appendFileSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonlTransitionRecorder, StateGraph, TransitionRecorder, readTransitionsFile, type WorkflowContext } from '../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-jsonl-open-'));
  dirs.push(dir);
  return join(dir, 't.jsonl');
};

/** How many of this process's file descriptors are open on `file` (Linux: /proc/self/fd). */
function openOn(file: string): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) count++;
    } catch {
      // Closed while listed (the listing's own descriptor).
    }
  }
  return count;
}

const time = (at: number) => ({ now: () => at });
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

/** Full batches are written by the writer thread: resolves once `file` holds `count` lines (or after 10 s). */
async function written(file: string, count: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    try {
      if (lines(file).length >= count) return;
    } catch {
      // Not made yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

// Linux only, as the whole suite (npm test runs on Linux x64): open files are read from /proc/self/fd.
describe('JsonlTransitionRecorder between batches', () => {
  it('keeps the file open between full batches of a run going on and closes it when the run ends', async () => {
    const file = tempFile();
    const recorder = new JsonlTransitionRecorder(file, { batch: 2, flushMs: 60_000 });
    const hops = recorder.hops;
    hops.hop({ type: 'run.started', graph: 'g' }, 'run-1', 'root', time(1));
    hops.hop({ type: 'node.started', nodeId: 'a' }, 'run-1', 'root', time(1));
    expect(openOn(file)).toBe(0);
    hops.step!('run-1', 'root', 'a', 2, 1, null, 'b', 'transition', 0, undefined);
    // Two lines (the start and a > b): a full batch, written, and the file left open for the next.
    await written(file, 2);
    expect(lines(file)).toHaveLength(2);
    expect(openOn(file)).toBe(1);
    // Another writer appends meanwhile: the recorder's next batch goes after its line, not over it.
    appendFileSync(file, '{"other":1}\n');
    hops.step!('run-1', 'root', 'b', 3, 1, null, 'a', 'transition', 0, undefined);
    hops.step!('run-1', 'root', 'a', 4, 1, null, 'b', 'transition', 0, undefined);
    await written(file, 5);
    expect(lines(file)).toHaveLength(5);
    expect(openOn(file)).toBe(1);
    hops.hop({ type: 'run.completed', run: { status: 'completed' } }, 'run-1', 'root', time(5));
    expect(openOn(file)).toBe(0);
    const all = lines(file);
    expect(all).toHaveLength(6);
    expect(all[2]).toBe('{"other":1}');
    expect(recorder.error).toBeNull();
  });

  // flushMs is long enough for the checks made right after a full batch to come before its timer.
  it('closes a file left open by a full batch flushMs later, when no more lines come, and on flush()', async () => {
    const file = tempFile();
    const recorder = new JsonlTransitionRecorder(file, { batch: 2, flushMs: 500 });
    const hops = recorder.hops;
    hops.hop({ type: 'run.started', graph: 'g' }, 'run-1', 'root', time(1));
    hops.hop({ type: 'node.started', nodeId: 'a' }, 'run-1', 'root', time(1));
    hops.step!('run-1', 'root', 'a', 2, 1, null, 'b', 'transition', 0, undefined);
    await written(file, 2);
    expect(openOn(file)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(openOn(file)).toBe(0);

    // A line after the batch waits at most flushMs, and the timer that writes it closes the file.
    hops.step!('run-1', 'root', 'b', 3, 1, null, 'a', 'transition', 0, undefined);
    hops.step!('run-1', 'root', 'a', 4, 1, null, 'b', 'transition', 0, undefined);
    hops.step!('run-1', 'root', 'b', 5, 1, null, 'a', 'transition', 0, undefined);
    await written(file, 4);
    expect(lines(file)).toHaveLength(4);
    expect(openOn(file)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(5);
    expect(openOn(file)).toBe(0);

    hops.step!('run-1', 'root', 'a', 6, 1, null, 'b', 'transition', 0, undefined);
    hops.step!('run-1', 'root', 'b', 7, 1, null, 'a', 'transition', 0, undefined);
    await written(file, 7);
    expect(openOn(file)).toBe(1);
    recorder.flush();
    expect(openOn(file)).toBe(0);
    expect(readTransitionsFile(file).map((r) => `${r.from}>${r.to}`)).toEqual(['__start__>a', 'a>b', 'b>a', 'a>b', 'b>a', 'a>b', 'b>a']);
  });
});

describe('JsonlTransitionRecorder lines', () => {
  it('are byte for byte JSON.stringify of the records a TransitionRecorder keeps, across full batches', async () => {
    const file = tempFile();
    const kept = new TransitionRecorder();
    const body = (ctx: WorkflowContext) => {
      ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
      return { usage: { inputTokens: 3, outputTokens: 4 } } as never;
    };
    const graph = new StateGraph({ name: 'wörk "quoted"', maxSteps: 50 })
      .addNode('a', body)
      .addNode('b\u2028🙂', body)
      .start('a')
      .addConditionalEdges('a', (ctx) => ((ctx.get<number>('n') ?? 0) >= 40 ? '__end__' : 'b\u2028🙂'))
      .addEdge('b\u2028🙂', 'a');
    const run = await graph.run('go', { recorders: [new JsonlTransitionRecorder(file, { batch: 7 }), kept] });
    expect(run.status).toBe('completed');
    expect(kept.records.length).toBeGreaterThan(40);
    expect(readFileSync(file, 'utf8')).toBe(kept.records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  });
});
