import { afterEach, describe, expect, it } from 'vitest';
import { SwitchboardError, type NewRun, type RunStore, type StoredEvent } from '../../src/index.js';

/** A 1 MiB text that is not base64-like, so nothing on the way scrubs it. */
export const MIB_TEXT = 'The customer says the E02 light blinks twice. '.repeat(Math.ceil((1024 * 1024) / 46)).slice(0, 1024 * 1024);

const run = (runId: string, snapshot: unknown): NewRun => ({ runId, graphName: 'g', graphHash: 'h', status: 'running', owner: null, leaseExpiresAt: null, snapshot });

/** JSON's own idea of a value: what must come back from the store. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** A seeded generator of JSON values that share long strings and whole objects, with keys that look like the table's markers. */
function sharedValues(seed: number): unknown {
  let x = seed;
  const next = () => ((x = (x * 1103515245 + 12345) % 2 ** 31), x);
  const pick = <T>(items: readonly T[]): T => items[next() % items.length]!;
  const long = [`${'a'.repeat(1500)}${seed}`, `${'é😀'.repeat(700)}`, 'z'.repeat(1024)];
  const pool: object[] = [];
  const make = (depth: number): unknown => {
    switch (next() % (depth > 3 ? 4 : 8)) {
      case 0:
        return pick(long);
      case 1:
        return pick(['', 'short', null, true, 0, -1.5, 1e21]);
      case 2:
        return pool.length > 0 ? pick(pool) : { $ref: 0 };
      case 3:
        return pick([{ $ref: 1 }, { $obj: { $ref: 2 } }, { $switchboard: 'values/1' }, { a: undefined, $ref: 3 }]);
      case 4:
      case 5: {
        const obj: Record<string, unknown> = {};
        for (let i = next() % 4; i > 0; i--) obj[pick(['k', '$ref', '$obj', 'values', 'value', `f${i}`])] = make(depth + 1);
        if (next() % 2 === 0) pool.push(obj);
        return obj;
      }
      default: {
        const list = Array.from({ length: next() % 4 }, () => make(depth + 1));
        if (next() % 3 === 0) list.push(undefined);
        pool.push(list);
        return list;
      }
    }
  };
  return { $switchboard: seed % 2 === 0 ? 'values/1' : 'other', values: make(0), value: make(0), more: [make(0), make(0)] };
}

/**
 * How every RunStore stores JSON: each long value once per stored value, exact round trips, and
 * typed errors for everything it cannot store.
 */
export function storeEncodingContract(label: string, makeStore: (options: { maxValueBytes?: number }) => RunStore): void {
  describe(`${label}: stored values`, () => {
    const opened: RunStore[] = [];
    const open = (options: { maxValueBytes?: number } = {}) => {
      const store = makeStore(options);
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    it('stores a 1 MiB text once however often a snapshot holds it, and reads it back exactly', async () => {
      const store = open();
      const result = { outputText: MIB_TEXT, usage: { inputTokens: 3 } };
      const snapshot = {
        context: { request: { input: MIB_TEXT }, result, state: { humanReply: MIB_TEXT, lastResult: result, currentRequest: { input: MIB_TEXT } }, delta: { set: { humanReply: MIB_TEXT } } },
        children: { draft: { snapshot: { input: { request: { input: MIB_TEXT } } } } },
      };
      await store.insertRun(run('big', snapshot));
      const { snapshotBytes } = await store.sizeOf('big');
      expect(snapshotBytes).toBeGreaterThan(1024 * 1024);
      expect(snapshotBytes).toBeLessThan(1.2 * 1024 * 1024);
      expect((await store.getRun('big'))!.snapshot).toEqual(snapshot);
    });

    it('stores a long value once per event and per journal entry too', async () => {
      const store = open();
      await store.insertRun(run('ev', { n: 1 }));
      const data = { type: 'node.completed', result: { outputText: MIB_TEXT }, delta: { set: { reply: MIB_TEXT } } };
      const event: StoredEvent = { runId: 'ev', seq: 1, type: 'node.completed', at: 1, data };
      expect(await store.updateRun('ev', 1, { lastSeq: 1 }, [event])).toBe(2);
      await store.putJournal('ev', 1, 'charge', { receipt: MIB_TEXT, copy: MIB_TEXT });
      const sizes = await store.sizeOf('ev');
      expect(sizes.eventBytes).toBeLessThan(1.2 * 1024 * 1024);
      expect(sizes.journalBytes).toBeLessThan(1.2 * 1024 * 1024);
      expect((await store.listEvents('ev'))[0]!.data).toEqual(data);
      expect(await store.getJournal('ev', 1, 'charge')).toEqual({ value: { receipt: MIB_TEXT, copy: MIB_TEXT } });
    });

    it('gives back exactly what JSON would for 60 generated values that share strings and objects and use the table’s own key names', async () => {
      const store = open();
      for (let seed = 1; seed <= 60; seed++) {
        const value = sharedValues(seed);
        const created = await store.insertRun(run(`v${seed}`, value));
        expect((await store.getRun(`v${seed}`))!.snapshot, `seed ${seed}`).toEqual(asJson(value));
        expect(created, `seed ${seed}: the record insertRun gives`).toStrictEqual(await store.getRun(`v${seed}`));
      }
    });

    it('refuses values that are not JSON with not_json naming the key path, and writes nothing', async () => {
      const store = open();
      const cycle: Record<string, unknown> = { name: 'loop' };
      cycle.self = cycle;
      const bad: Array<[unknown, RegExp]> = [
        [{ state: { when: new Date(0) } }, /snapshot\.state\.when holds a Date/],
        [{ state: { m: new Map() } }, /snapshot\.state\.m holds a Map/],
        [{ state: { n: 5n } }, /snapshot\.state\.n holds a bigint/],
        [{ state: { f: () => 1 } }, /snapshot\.state\.f holds a function/],
        [{ state: { x: [1, Number.NaN] } }, /snapshot\.state\.x\[1\] holds NaN/],
        [{ state: { x: Number.POSITIVE_INFINITY } }, /snapshot\.state\.x holds Infinity/],
        [{ state: { loop: cycle } }, /snapshot\.state\.loop\.self refers back to itself/],
      ];
      await store.insertRun(run('r', { n: 1 }));
      for (const [snapshot, message] of bad) {
        await expect(store.insertRun(run('new', snapshot))).rejects.toMatchObject({ code: 'not_json', message: expect.stringMatching(message) });
        await expect(store.updateRun('r', 1, { snapshot })).rejects.toMatchObject({ code: 'not_json', message: expect.stringMatching(message) });
      }
      expect(await store.getRun('new')).toBeNull();
      expect((await store.getRun('r'))!.version).toBe(1);
    });

    it('refuses a value over the limit, or nested too deeply, with value_too_large naming its largest part', async () => {
      const store = open({ maxValueBytes: 64 * 1024 });
      await store.insertRun(run('r', { n: 1 }));
      const big = { context: { state: { document: 'word '.repeat(20_000) } } };
      const error = await store.updateRun('r', 1, { snapshot: big }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SwitchboardError);
      expect(error).toMatchObject({ code: 'value_too_large', message: expect.stringMatching(/at most 64 KiB; the largest part is snapshot\.context\.state\.document/) });
      let deep: unknown = 'bottom';
      for (let i = 0; i < 5000; i++) deep = [deep];
      await expect(store.updateRun('r', 1, { snapshot: { deep } })).rejects.toMatchObject({ code: 'value_too_large', message: expect.stringMatching(/nested more than 1000 levels/) });
      const event: StoredEvent = { runId: 'r', seq: 1, type: 'x', at: 1, data: { text: 'word '.repeat(20_000) } };
      await expect(store.updateRun('r', 1, { lastSeq: 1 }, [event])).rejects.toMatchObject({ code: 'value_too_large' });
      await expect(store.putJournal('r', 1, 'k', 'word '.repeat(20_000))).rejects.toMatchObject({ code: 'value_too_large' });
      expect(await store.listEvents('r')).toEqual([]);
      expect((await store.getRun('r'))!.version).toBe(1);
      // Shared values count once: seven copies of 40 KiB fit in 64 KiB.
      const text = 'x y '.repeat(10_000);
      expect(await store.updateRun('r', 1, { snapshot: { a: text, b: text, c: [text, text, text, text, text] } })).toBe(2);
    });

    it('refuses fields of the wrong type with store_encoding naming the field', async () => {
      const store = open();
      await store.insertRun(run('r', { n: 1 }));
      const patches: Array<[unknown, RegExp]> = [
        [{ outputText: { text: 'hi' } }, /patch\.outputText must be a string or null/],
        [{ waitReason: 5 }, /patch\.waitReason/],
        [{ status: 'finished' }, /patch\.status must be one of/],
        [{ lastSeq: -1 }, /patch\.lastSeq/],
        [{ leaseExpiresAt: Number.NaN }, /patch\.leaseExpiresAt/],
        [{ error: { message: 'x' } }, /patch\.error/],
        [{ colour: 'red' }, /patch\.colour is not a run field/],
      ];
      for (const [patch, message] of patches) {
        await expect(store.updateRun('r', 1, patch as never)).rejects.toMatchObject({ code: 'store_encoding', message: expect.stringMatching(message) });
      }
      const events: Array<[unknown, RegExp]> = [
        [{ runId: 'r', seq: 0, type: 'x', at: 1, data: {} }, /events\[0\]\.seq/],
        [{ runId: 'r', seq: 1, type: '', at: 1, data: {} }, /events\[0\]\.type/],
        [{ runId: 'r', seq: 1, type: 'x', at: 1, data: 'text' }, /events\[0\]\.data must be an object/],
      ];
      for (const [event, message] of events) {
        await expect(store.updateRun('r', 1, {}, [event as StoredEvent])).rejects.toMatchObject({ code: 'store_encoding', message: expect.stringMatching(message) });
      }
      const runs: Array<[Partial<NewRun>, RegExp]> = [
        [{ runId: '' }, /run\.runId/],
        [{ runId: 'x'.repeat(201) }, /run\.runId/],
        [{ status: 'done' as never }, /run\.status/],
        [{ owner: 5 as never }, /run\.owner/],
      ];
      for (const [fields, message] of runs) {
        await expect(store.insertRun({ ...run('n', { n: 1 }), ...fields })).rejects.toMatchObject({ code: 'store_encoding', message: expect.stringMatching(message) });
      }
      await expect(store.putJournal('r', -1, 'k', 1)).rejects.toMatchObject({ code: 'store_encoding' });
      expect((await store.getRun('r'))!.version).toBe(1);
    });
  });
}
