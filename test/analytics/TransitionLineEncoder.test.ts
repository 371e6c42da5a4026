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
