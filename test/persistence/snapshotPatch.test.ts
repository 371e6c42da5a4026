import { describe, expect, it } from 'vitest';
import { applySnapshotPatch, diffSnapshot } from '../../src/index.js';
import { snapshotChangeSize } from '../../src/persistence/snapshotPatch.js';
import { storableSize } from '../../src/persistence/storedJson.js';
import { seededRandom as seeded } from '../support/seededRandom.js';


/** The next state of `value` as a run's context makes it: new objects where something changed, the rest shared. */
function mutate(value: Record<string, unknown>, random: () => number, depth = 0): Record<string, unknown> {
  const next = { ...value };
  const keys = ['a', 'b', 'c', 'list', 'deep', '__proto__'];
  const key = keys[Math.floor(random() * keys.length)]!;
  const roll = random();
  const current = Object.hasOwn(next, key) ? next[key] : undefined;
  // Written as own properties, as JSON.parse makes them (a `__proto__` key stays a key).
  const set = (v: unknown) => Object.defineProperty(next, key, { value: v, enumerable: true, writable: true, configurable: true });
  if (roll < 0.2) delete next[key];
  else if (roll < 0.4 && Array.isArray(current)) set([...current, Math.floor(random() * 100)]);
  else if (roll < 0.6 && depth < 3 && current !== null && typeof current === 'object' && !Array.isArray(current)) set(mutate(current as Record<string, unknown>, random, depth + 1));
  else if (roll < 0.7) set([Math.floor(random() * 10)]);
  else if (roll < 0.85) set({ x: random() < 0.5 ? 'text' : null });
  else set(Math.floor(random() * 1000));
  return next;
}

/**
 * The one-walk measure a durable step takes equals the diff's: null when nothing changed, else the
 * bytes a visitor of the diff sums. Returns the diff's patch.
 */
function expectMeasuredAsDiffed(prev: Record<string, unknown>, next: Record<string, unknown>, label: string) {
  let visited = 0;
  const patch = diffSnapshot(prev, next, (value, keys) => {
    visited += storableSize(value, 'snapshot');
    for (const key of keys) visited += key.length + 16;
  });
  expect(snapshotChangeSize(prev, next), label).toBe(patch === null ? null : visited);
  return patch;
}

describe('snapshot patches', () => {
  it('turn each state of 500 generated sequences into the next one, through JSON, whatever changed', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const random = seeded(seed);
      let stored: unknown = { a: 1 };
      let state: Record<string, unknown> = { a: 1 };
      for (let step = 0; step < 20; step++) {
        const next = mutate(state, random);
        const patch = expectMeasuredAsDiffed(state, next, `seed ${seed}, step ${step}`);
        if (patch !== null) stored = applySnapshotPatch(stored, JSON.parse(JSON.stringify(patch)));
        expect(JSON.stringify(stored), `seed ${seed}, step ${step}`).toBe(JSON.stringify(next));
        state = next;
      }
    }
  });

  it('hold only what changed: a shared 10 KB value is not written again, an appended list only its new items', () => {
    const big = 'x'.repeat(10_000);
    const prev = { context: { state: { big, count: 1 }, path: { chunks: [['a', 'b']], tail: ['a'] } } };
    const next = { context: { state: { big, count: 2 }, path: { chunks: prev.context.path.chunks, tail: ['a', 'b'] } } };
    const patch = diffSnapshot(prev, next);
    expect(patch).toEqual({ at: { context: { at: { state: { set: { count: 2 } }, path: { at: { tail: { push: ['b'] } } } } } } });
    expect(JSON.stringify(patch).length).toBeLessThan(100);
    expect(diffSnapshot(next, next)).toBeNull();
    expect(snapshotChangeSize(next, next)).toBeNull();
  });

  it('are measured in one walk only when every written value is plain JSON; anything else is left to the diff, which names it', () => {
    expect(snapshotChangeSize({ a: 1 }, { a: new Map() })).toBe(-1);
    expect(snapshotChangeSize({ a: { b: 1 } }, { a: { b: Number.NaN } })).toBe(-1);
    expect(snapshotChangeSize({ list: [1] }, { list: [1, () => 2] })).toBe(-1);
    expect(snapshotChangeSize({ a: 1, gone: 2 }, { a: 1 })).toBe(0);
  });

  it('are measured the same with an enumerable key on Object.prototype (a polluted prototype is not read as a change)', () => {
    const proto = Object.prototype as Record<string, unknown>;
    Object.defineProperty(proto, 'polluted', { value: 1, enumerable: true, writable: true, configurable: true });
    try {
      for (let seed = 1; seed <= 50; seed++) {
        const random = seeded(seed);
        let state: Record<string, unknown> = { a: 1 };
        for (let step = 0; step < 20; step++) {
          const next = mutate(state, random);
          expectMeasuredAsDiffed(state, next, `seed ${seed}, step ${step}`);
          state = next;
        }
      }
      // An own key that goes away while the prototype has one of that name is still a change.
      expect(snapshotChangeSize({ a: 1, polluted: 5 }, { a: 1 })).not.toBeNull();
      expect(diffSnapshot({ a: 1, polluted: 5 }, { a: 1 })).toEqual({ del: ['polluted'] });
      expect(snapshotChangeSize({ a: 1 }, { a: 1 })).toBeNull();
    } finally {
      delete proto['polluted'];
    }
  });

  it('refuse a step record that is not a patch as a corrupt row', () => {
    expect(() => applySnapshotPatch({}, 'set')).toThrow(expect.objectContaining({ code: 'store_corrupt' }));
    expect(() => applySnapshotPatch({ list: 1 }, { at: { list: { push: [2] } } })).toThrow(expect.objectContaining({ code: 'store_corrupt' }));
  });
});
