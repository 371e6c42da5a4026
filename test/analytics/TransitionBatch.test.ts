import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { TransitionBatch } from '../../src/analytics/TransitionBatch.js';
import type { TransitionRecord } from '../../src/analytics/TransitionRecord.js';
import type { TransitionRun } from '../../src/analytics/TransitionSink.js';
import { TransitionWriterThread } from '../../src/analytics/TransitionWriterThread.js';
import { TransitionWriters } from '../../src/analytics/TransitionWriters.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-batch-'));
  dirs.push(dir);
  return join(dir, 'deep', 't.jsonl');
};

/** A deterministic stream of pseudo-random numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const STRINGS = ['a', 'b', 'route "x"', 'naïve → é', '\u2028', 'back\\slash', '__proto__', '', 'emoji 🙂', '\ud800'];
const NUMBERS = [0, -0, 1, 1023, 1024, 0.1, 1e21, 1.5e-7, Number.NaN, Number.POSITIVE_INFINITY, 1_796_617_841_676, 2 ** 53];

/**
 * Records as a tracker hands them over: its run objects (one per run, shared by its records; more
 * run ids than the batch's tables hold, so they start anew on the way), a path or none, a cost or
 * none (NaN is a cost, written as null), with the record JSON.stringify would write for each.
 */
function records(count: number, seed: number): { run: TransitionRun; record: TransitionRecord }[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const runs = new Map<number, TransitionRun>();
  const out: { run: TransitionRun; record: TransitionRecord }[] = [];
  for (let i = 0; i < count; i++) {
    const n = Math.floor(i / 2) + (next() < 0.2 ? -1 : 0);
    const key = Math.max(0, n);
    let run = runs.get(key);
    if (run === undefined) {
      run = { runId: `run-${key} "${pick(STRINGS)}"`, workflow: pick(['loop', 'wörk']), path: (next() < 0.8 ? pick(['root', 'root/x[0]']) : undefined) as string };
      runs.set(key, run);
    }
    const record: TransitionRecord = { runId: run.runId, workflow: run.workflow, from: pick(STRINGS), to: pick(STRINGS), at: pick(NUMBERS), durationMs: pick(NUMBERS), tokens: pick(NUMBERS), nodeType: pick(['node', 'agent', 'hu"man']), label: pick(STRINGS) };
    if (run.path !== undefined) record.path = run.path;
    if (next() < 0.3) record.costUsd = pick(NUMBERS);
    out.push({ run, record });
  }
  return out;
}

const expected = (list: { record: TransitionRecord }[]) => list.map(({ record }) => `${JSON.stringify(record)}\n`).join('');

describe('TransitionBatch and TransitionWriters', () => {
  it('carry records from one side to the other and write them byte for byte as JSON.stringify, across batches, closings and table restarts', () => {
    const file = tempFile();
    const list = records(12_000, 11);
    const writers = new TransitionWriters();
    const batch = new TransitionBatch(97);
    const next = random(5);
    let seq = 0;
    let first = true;
    for (let i = 0; i < list.length; i++) {
      const { run, record } = list[i]!;
      batch.add(run, record.from, record.to, record.at, record.durationMs, record.tokens, record.costUsd, record.nodeType, record.label);
      const full = batch.count >= 97;
      // Now and then, early on, a batch that closes the file (a run's end): the writing side forgets
      // its tables. After that none, so the tables outgrow their bound and start anew on their own.
      const closing = i < 2_000 && next() < 0.01;
      if (full || closing || i === list.length - 1) {
        const message = batch.take();
        expect(writers.handle({ seq: ++seq, id: 1, file, first, batch: message, keepOpen: !closing })).toBeNull();
        first = false;
        if (closing) batch.restart();
      }
    }
    writers.handle({ seq: ++seq, id: 1, file, first, batch: null, keepOpen: false });
    expect(readFileSync(file, 'utf8')).toBe(expected(list));
  });

  it('are written in the process\'s own thread, the same lines, when the writer thread cannot start, and the process is warned', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const file = tempFile();
    const list = records(1_000, 3);
    // A thread on a module that is not there (as in a bundle that left it out): it fails to start.
    const thread = new TransitionWriterThread(pathToFileURL(join(tmpdir(), 'no-such-dir', 'serveTransitionWriters.js')).href);
    const errors: Error[] = [];
    const batch = new TransitionBatch(256);
    const id = TransitionWriterThread.nextId();
    let first = true;
    for (const { run, record } of list) {
      batch.add(run, record.from, record.to, record.at, record.durationMs, record.tokens, record.costUsd, record.nodeType, record.label);
      if (batch.count >= 256) {
        thread.send({ id, file, first, batch: batch.take(), keepOpen: true }, (error) => errors.push(error));
        first = false;
      }
    }
    thread.send({ id, file, first, batch: batch.take(), keepOpen: false }, (error) => errors.push(error));
    thread.settle();
    expect(errors).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe(expected(list));
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings.map((w) => [(w as NodeJS.ErrnoException).code, w.message])).toEqual([
      ['SWITCHBOARD_TRANSITION_WRITER', expect.stringMatching(/^The JSONL transition writer thread could not load file:.*no-such-dir.*written in the run's own thread/)],
    ]);
  });

  it('tell the recorders whose lines a writer thread that died had not written, and write none of their later lines wrong', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const file = tempFile();
    const other = tempFile();
    const list = records(4, 17);
    const thread = new TransitionWriterThread(new URL('../support/dyingTransitionWriters.ts', import.meta.url).href);
    const errors: Error[] = [];
    const otherErrors: Error[] = [];
    const batch = new TransitionBatch(2);
    const otherBatch = new TransitionBatch(2);
    const id = TransitionWriterThread.nextId();
    const otherId = TransitionWriterThread.nextId();
    const add = (b: TransitionBatch, { run, record }: { run: TransitionRun; record: TransitionRecord }) => b.add(run, record.from, record.to, record.at, record.durationMs, record.tokens, record.costUsd, record.nodeType, record.label);
    // A full batch, written (the file left open, its tables on the thread), and another recorder's, written and closed.
    add(batch, list[0]!);
    add(batch, list[1]!);
    thread.send({ id, file, first: true, batch: batch.take(), keepOpen: true }, (error) => errors.push(error));
    add(otherBatch, list[0]!);
    thread.send({ id: otherId, file: other, first: true, batch: otherBatch.take(), keepOpen: false }, (error) => otherErrors.push(error));
    otherBatch.restart(); // as a recorder does when it closes its file (the thread forgets its tables)
    thread.settle();
    expect(readFileSync(file, 'utf8')).toBe(expected(list.slice(0, 2)));
    // The next batch (3 lines) kills the thread before it is written; the process goes on.
    for (const r of list.slice(1, 4)) add(batch, r);
    thread.send({ id, file, first: false, batch: batch.take(), keepOpen: true }, (error) => errors.push(error));
    await until('the thread to stop', () => warnings.length > 0);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/^the transition writer thread stopped before writing every line sent to it/)]);
    // Its next batch cannot be written here (the string tables died with the thread): refused, not written with holes.
    add(batch, list[3]!);
    thread.send({ id, file, first: false, batch: batch.take(), keepOpen: false }, (error) => errors.push(error));
    thread.settle();
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/stopped before writing/), expect.stringMatching(/refers to \d+ strings and \d+ runs sent before/)]);
    expect(readFileSync(file, 'utf8')).toBe(expected(list.slice(0, 2)));
    // A recorder that had nothing outstanding writes on, in this thread.
    add(otherBatch, list[2]!);
    thread.send({ id: otherId, file: other, first: false, batch: otherBatch.take(), keepOpen: false }, (error) => otherErrors.push(error));
    thread.settle();
    expect(otherErrors).toEqual([]);
    expect(readFileSync(other, 'utf8')).toBe(expected([list[0]!, list[2]!]));
    process.off('warning', onWarning);
    expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^The JSONL transition writer thread stopped/)]);
  });
});
