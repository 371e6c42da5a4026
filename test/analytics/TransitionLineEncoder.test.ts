import { describe, expect, it } from 'vitest';
import type { TransitionRecord } from '../../src/analytics/TransitionRecord.js';
import { TransitionLineEncoder } from '../../src/analytics/TransitionLineEncoder.js';

/** A deterministic stream of pseudo-random numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const STRINGS = ['a', 'b', 'route "x"', 'naïve → é', '\u2028', 'tab\there', 'back\\slash', '</script>', '__proto__', '', 'emoji 🙂', '\ud800'];
const NUMBERS = [0, -0, 1, 1023, 1024, 0.1, 1e21, 1.5e-7, Number.NaN, Number.POSITIVE_INFINITY, 1_796_617_841_676, 2 ** 53];

describe('TransitionLineEncoder', () => {
  it('writes every record byte for byte as JSON.stringify does, however runs, workflows, nodes and labels interleave', () => {
    const next = random(7);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    const encoder = new TransitionLineEncoder();
    const records: TransitionRecord[] = [];
    for (let i = 0; i < 5_000; i++) {
      // A record as the tracker makes it: these keys in this order, path and costUsd at times absent.
      const record: TransitionRecord = {
        runId: pick(['run-1', 'run-2', 'rün "3"', `run-${i % 300}`]),
        workflow: pick(['loop', 'other', 'wörk']),
        from: pick(STRINGS.slice(0, 6)),
        to: pick(STRINGS),
        at: pick(NUMBERS),
        durationMs: pick(NUMBERS),
        tokens: pick(NUMBERS),
        nodeType: pick(['node', 'agent', 'start', 'hu"man']),
        label: pick(STRINGS),
      };
      if (next() < 0.7) record.path = pick(['root', 'root/x[0]', 'ä "p"']);
      if (next() < 0.3) record.costUsd = pick(NUMBERS);
      records.push(record);
    }
    // One at a time and in batches of every size, with the encoder's memory carried over.
    for (const record of records.slice(0, 500)) expect(encoder.line(record)).toBe(`${JSON.stringify(record)}\n`);
    let at = 0;
    for (let size = 1; at < records.length; size = (size * 3) % 257) {
      const batch = records.slice(at, at + size);
      expect(Buffer.from(encoder.encode(batch)).toString('utf8')).toBe(batch.map((r) => `${JSON.stringify(r)}\n`).join(''));
      at += size;
    }
  });

  it('keeps what it remembers small across many runs', () => {
    const encoder = new TransitionLineEncoder();
    for (let i = 0; i < 20_000; i++) {
      const record: TransitionRecord = { runId: `run-${i}`, workflow: 'w', from: `n${i % 500}`, to: `m${i % 700}`, at: i, durationMs: 0, tokens: 0, nodeType: 'node', label: `l${i}` };
      expect(encoder.line(record)).toBe(`${JSON.stringify(record)}\n`);
    }
  });
});

describe('TransitionLineEncoder as a TransitionSink', () => {
  /** A string of random UTF-16 code units: ASCII, quotes and escapes, controls, accents, emoji halves and whole, lone surrogates. */
  function text(next: () => number): string {
    const units = [0x22, 0x5c, 0x2f, 0x0a, 0x00, 0x1f, 0x7f, 0xe9, 0x2028, 0x2029, 0xd83d, 0xde42, 0xdfff, 0xfeff, 0xffff];
    let s = '';
    const length = Math.floor(next() * 12);
    for (let i = 0; i < length; i++) {
      const r = next();
      if (r < 0.5) s += String.fromCharCode(0x20 + Math.floor(next() * 95));
      else if (r < 0.8) s += String.fromCharCode(units[Math.floor(next() * units.length)]!);
      else if (r < 0.9) s += '🙂';
      else s += String.fromCharCode(Math.floor(next() * 0x10000));
    }
    return s;
  }
  function number(next: () => number): number {
    const r = next();
    if (r < 0.3) return Math.floor(next() * 2000);
    if (r < 0.4) return [0, -0, NaN, Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE, 2 ** 53, 2 ** 53 + 2, 1e21, 1e-7, 123e-20][Math.floor(next() * 12)]!;
    if (r < 0.6) return (next() - 0.5) * 10 ** Math.floor(next() * 40 - 20);
    if (r < 0.8) return 1_796_000_000_000 + Math.floor(next() * 1e9);
    return next() * 1000;
  }

  it('writes each record handed over field by field byte for byte as JSON.stringify writes the record, over random strings and numbers', () => {
    const next = random(2026);
    const encoder = new TransitionLineEncoder();
    // Few runs, nodes and labels, so the encoder's remembered pieces are reused and replaced often.
    const runs = Array.from({ length: 6 }, () => ({ runId: text(next) || 'r', workflow: text(next), path: next() < 0.5 ? 'root' : text(next) }));
    const names = Array.from({ length: 8 }, () => text(next) || 'n');
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    for (let batch = 0; batch < 200; batch++) {
      let expected = '';
      const size = 1 + Math.floor(next() * 60);
      for (let i = 0; i < size; i++) {
        const run = pick(runs);
        const [from, to, nodeType, label] = [pick(names), next() < 0.1 ? text(next) || 'x' : pick(names), next() < 0.8 ? 'node' : text(next), next() < 0.7 ? pick(names) : text(next)];
        const [at, durationMs, tokens] = [number(next), number(next), number(next)];
        const costUsd = next() < 0.3 ? number(next) : undefined;
        encoder.add(run, from, to, at, durationMs, tokens, costUsd, nodeType, label);
        // The record the tracker would have made, in its key order.
        const record: Record<string, unknown> = { runId: run.runId, workflow: run.workflow, from, to, at, durationMs, tokens, nodeType, label, path: run.path };
        if (costUsd !== undefined) record['costUsd'] = costUsd;
        expected += `${JSON.stringify(record)}\n`;
      }
      expect(encoder.lines).toBe(size);
      const bytes = encoder.take();
      expect(Buffer.from(bytes).equals(Buffer.from(expected, 'utf8'))).toBe(true);
      expect(encoder.lines).toBe(0);
    }
  });

  it('gives records added and taken after a huge batch as before (the grown buffer is let go)', () => {
    const encoder = new TransitionLineEncoder();
    const run = { runId: 'r', workflow: 'w', path: 'root' };
    const label = 'x'.repeat(5_000);
    for (let i = 0; i < 400; i++) encoder.add(run, 'a', 'b', i, 0, 0, undefined, 'node', label);
    const big = encoder.take();
    expect(big.length).toBeGreaterThan(1024 * 1024);
    const first = Buffer.from(big.subarray(0, big.indexOf(0x0a) + 1)).toString('utf8');
    encoder.add(run, 'a', 'b', 7, 1, 2, 0.5, 'node', 'y');
    expect(Buffer.from(encoder.take()).toString('utf8')).toBe(`${JSON.stringify({ runId: 'r', workflow: 'w', from: 'a', to: 'b', at: 7, durationMs: 1, tokens: 2, nodeType: 'node', label: 'y', path: 'root', costUsd: 0.5 })}\n`);
    // The big batch's bytes, taken before, are still what they were.
    expect(first).toBe(`${JSON.stringify({ runId: 'r', workflow: 'w', from: 'a', to: 'b', at: 0, durationMs: 0, tokens: 0, nodeType: 'node', label, path: 'root' })}\n`);
  });
});
