import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { END, StateGraph, TransitionRecorder, type TransitionRecord } from '../../src/index.js';

const hops = (records: readonly TransitionRecord[]) => records.map((r) => `${r.from}>${r.to}`);
const RUN = ['__start__>a', 'a>b', 'b>__end__:completed'];
const twoNodes = () => new StateGraph({ name: 'two', maxSteps: 3 }).addNode('a', () => 'x').addNode('b', () => 'y').start('a').addEdge('a', 'b').addEdge('b', END);
/** A plain array with the same elements, read through the array's own indexes (no iterator). */
const copyOf = (records: readonly TransitionRecord[]) => Array.from({ length: records.length }, (_, i) => records[i]!);

describe('TransitionRecorder.records, read whenever and however', () => {
  it('is an array that a run fills after it was taken, read by index, length, iteration, spreading and array methods', async () => {
    const recorder = new TransitionRecorder();
    const { records } = recorder;
    expect(Array.isArray(records)).toBe(true);
    expect(records).toBeInstanceOf(Array);
    expect(records).toHaveLength(0);
    await twoNodes().run('go', { recorders: [recorder] });
    expect(recorder.records).toBe(records);
    expect(records.length).toBe(3);
    expect(records[2]!.to).toBe('__end__:completed');
    expect(records.at(-1)).toBe(records[2]);
    expect(hops([...records])).toEqual(RUN);
    expect(hops(Array.from(records))).toEqual(RUN);
    const seen: string[] = [];
    for (const record of records) seen.push(record.from);
    expect(seen).toEqual(['__start__', 'a', 'b']);
    expect(hops(records)).toEqual(RUN);
    expect(records.filter((r) => r.from === 'a')).toHaveLength(1);
    expect(records.findIndex((r) => r.from === 'b')).toBe(2);
    expect(Object.keys(records)).toEqual(['0', '1', '2']);
    expect(Reflect.ownKeys(records)).toEqual(Reflect.ownKeys(copyOf(records)));
    expect(1 in records && !(3 in records)).toBe(true);
    expect(records.slice().constructor).toBe(Array);
    expect([0].concat(records as never[])).toHaveLength(4);
    expect(records).toStrictEqual(copyOf(records));
    // The same objects at every read: built once.
    expect(records[0]).toBe([...records][0]);
  });

  it('counts records without reading them, and its length agrees with its elements at every point', async () => {
    const recorder = new TransitionRecorder();
    const { records } = recorder;
    const lengths: number[] = [];
    const graph = new StateGraph({ name: 'counts', maxSteps: 4 })
      .addNode('a', () => { lengths.push(records.length); return 'x'; })
      .addNode('b', () => { lengths.push(records.length); return 'y'; })
      .start('a').addEdge('a', 'b').addEdge('b', END);
    await graph.run('go', { recorders: [recorder] });
    expect(lengths).toEqual([1, 2]);
    expect(records.length).toBe(3);
    expect(copyOf(records).every((r) => typeof r.from === 'string')).toBe(true);
    expect(Object.keys(records)).toHaveLength(records.length);
  });

  it('holds what the run did so far when read in the middle of it, through an array taken before it', async () => {
    const recorder = new TransitionRecorder();
    const { records } = recorder;
    const midway: string[][] = [];
    const graph = new StateGraph({ name: 'watched', maxSteps: 4 })
      .addNode('a', () => { midway.push(hops(records)); return 'x'; })
      .addNode('b', () => { midway.push([...records].map((r) => `${r.from}>${r.to}`)); return 'y'; })
      .start('a').addEdge('a', 'b').addEdge('b', END);
    await graph.run('go', { recorders: [recorder] });
    expect(midway).toEqual([['__start__>a'], ['__start__>a', 'a>b']]);
    // Records read mid-run are the same objects afterwards.
    expect(hops(records)).toEqual(RUN);
  });

  it('sees records that arrive while it is being iterated', async () => {
    const recorder = new TransitionRecorder();
    const { records } = recorder;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const graph = new StateGraph({ name: 'slow', maxSteps: 3 }).addNode('a', () => 'x').addNode('b', async () => { await gate; return 'y'; }).start('a').addEdge('a', 'b').addEdge('b', END);
    const running = graph.run('go', { recorders: [recorder] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const iterator = records[Symbol.iterator]();
    expect(iterator.next().value?.to).toBe('a');
    expect(iterator.next().value?.to).toBe('b');
    release();
    await running;
    expect(iterator.next().value?.to).toBe('__end__:completed');
    expect(iterator.next().done).toBe(true);
  });

  it('keeps what the user changed and appends later records after it', async () => {
    const recorder = new TransitionRecorder();
    const { records } = recorder;
    const graph = twoNodes();
    await graph.run('one', { recorders: [recorder] });
    // Changed before anything read the run's records: they are in place first.
    const mine = { ...records[0]!, runId: 'mine', from: 'x', to: 'y' };
    records.push(mine);
    expect(records).toHaveLength(4);
    expect(records[3]).toBe(mine);
    records.splice(0, 1);
    records[0] = { ...records[0]!, label: 'edited' };
    await graph.run('two', { recorders: [recorder] });
    expect(records.map((r) => `${r.from}>${r.to}:${r.label}`)).toEqual([
      'a>b:edited',
      'b>__end__:completed:transition[0]',
      'x>y:start',
      '__start__>a:start',
      'a>b:transition[0]',
      'b>__end__:completed:transition[0]',
    ]);
    records.length = 0;
    await graph.run('three', { recorders: [recorder] });
    expect(hops(records)).toEqual(RUN);
    expect(new Set(records.map((r) => r.runId)).size).toBe(1);
    expect(records[0]!.runId).not.toBe(mine.runId);
  });

  it('holds both runs, each in order, when two run on one recorder at the same time', async () => {
    const recorder = new TransitionRecorder();
    const { records } = recorder;
    const seenFromA: number[] = [];
    const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
    const graph = (name: string) =>
      new StateGraph({ name, maxSteps: 8 })
        .addNode('a', async () => { await tick(); seenFromA.push(new Set(records.map((r) => r.runId)).size); return 'x'; })
        .addNode('b', async () => { await tick(); return 'y'; })
        .start('a').addEdge('a', 'b').addEdge('b', END);
    const [one, two] = await Promise.all([graph('one').run('go', { recorders: [recorder] }), graph('two').run('go', { recorders: [recorder] })]);
    expect(records).toHaveLength(6);
    for (const run of [one, two]) expect(hops(records.filter((r) => r.runId === run.runId))).toEqual(RUN);
    // Interleaved: each run's first node saw both runs started.
    expect(seenFromA).toEqual([2, 2]);
    expect(records.slice(0, 2).map((r) => r.to)).toEqual(['a', 'a']);
  });

  it('has the records of a failed run, ending in its status', async () => {
    const recorder = new TransitionRecorder();
    const { records } = recorder;
    const fails = new StateGraph({ name: 'fails' }).addNode('ok', () => 'x').addNode('boom', () => { throw new Error('boom'); }).start('ok').addEdge('ok', 'boom');
    expect((await fails.run('go', { recorders: [recorder] })).status).toBe('failed');
    expect(records.map((r) => `${r.from}>${r.to}:${r.label}`)).toEqual(['__start__>ok:start', 'ok>boom:transition[0]', 'boom>__end__:failed:failed']);
    await twoNodes().run('go', { recorders: [recorder] });
    expect(hops(records.slice(3))).toEqual(RUN);
  });

  it('serialises as the plain array of its records: JSON, a copy for structuredClone, and the console', async () => {
    const recorder = new TransitionRecorder();
    const { records } = recorder;
    await twoNodes().run('go', { recorders: [recorder] });
    // Nothing has read the records yet: each of these sees them all.
    expect(inspect(records)).toContain("'__end__:completed'");
    expect(inspect(records)).toBe(inspect(copyOf(records)));
    expect(JSON.stringify(records)).toBe(JSON.stringify(copyOf(records)));
    expect(JSON.parse(JSON.stringify({ records }))).toEqual({ records: copyOf(records) });
    expect(structuredClone(records.slice())).toEqual(copyOf(records));
    expect(Object.getOwnPropertySymbols(records)).toEqual([]);
  });

  it('can be frozen once the runs are over', async () => {
    const recorder = new TransitionRecorder();
    await twoNodes().run('go', { recorders: [recorder] });
    const records = Object.freeze(recorder.records);
    expect(Object.isFrozen(records)).toBe(true);
    expect(hops(records)).toEqual(RUN);
    expect(JSON.parse(JSON.stringify(records))).toHaveLength(3);
  });

  it('stays what it was when frozen or sealed while the recorder keeps recording later runs', async () => {
    for (const close of [Object.freeze, Object.seal, Object.preventExtensions] as Array<(a: TransitionRecord[]) => TransitionRecord[]>) {
      const recorder = new TransitionRecorder();
      await twoNodes().run('go', { recorders: [recorder] });
      // Closed before it was ever read: it holds the records made until then.
      const records = close(recorder.records);
      await twoNodes().run('go', { recorders: [recorder] });
      expect(records.length, close.name).toBe(3);
      expect(hops(records), close.name).toEqual(RUN);
      expect(hops([...records]), close.name).toEqual(RUN);
      expect(Object.keys(records), close.name).toEqual(['0', '1', '2']);
      expect(JSON.parse(JSON.stringify(records)), close.name).toHaveLength(3);
      expect(inspect(records).match(/from: /g), close.name).toHaveLength(3);
      expect(() => records.push(records[0]!), close.name).toThrow(TypeError);
      // The recorder's next array has every record, and goes on filling.
      const fresh = recorder.records;
      expect(fresh, close.name).not.toBe(records);
      expect(hops(fresh), close.name).toEqual([...RUN, ...RUN]);
      await twoNodes().run('go', { recorders: [recorder] });
      expect(fresh.length, close.name).toBe(9);
      expect(recorder.records, close.name).toBe(fresh);
      expect(records.length, close.name).toBe(3);
    }
  });

  it('is a plain empty array when records go to onTransition', async () => {
    const given: TransitionRecord[] = [];
    const recorder = new TransitionRecorder({ onTransition: (r) => given.push(r) });
    await twoNodes().run('go', { recorders: [recorder] });
    expect(hops(given)).toEqual(RUN);
    expect(recorder.records).toEqual([]);
    expect(structuredClone(recorder.records)).toEqual([]);
  });
});
