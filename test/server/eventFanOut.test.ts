import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { request, type IncomingMessage } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { END, MemoryRecorder, RunManager, SqliteRunStore, StateGraph, startServer, toEventJson } from '../../src/index.js';
import { Gates } from '../fixtures/workbenchGraphs.js';
import { SseReader, seqs, type SseMessage } from './sseClient.js';
import { testWorkbench } from './workbenchTarget.js';

/**
 * `a → b → c`, each node waiting for its gate `<input>:<id>`; `b` returns the object registered
 * for the run's input as its raw response, so the test can see who walks it (redaction does).
 */
function markedGraph(gates: Gates, markers: Map<string, object>): StateGraph {
  const graph = new StateGraph({ name: 'marked' });
  for (const id of ['a', 'b', 'c']) {
    graph.addNode(id, async (ctx, request) => {
      const input = String(request.metadata?.key ?? request.input);
      await gates.wait(`${input}:${id}`);
      ctx.put(`${id}Done`, true);
      return id === 'b' ? { outputText: null, rawResponse: markers.get(input) } : null;
    });
  }
  return graph.start('a').addEdge('a', 'b').addEdge('b', 'c');
}

/** Eight nodes, each putting about 2 KB into the state: a run whose events outgrow a small stream buffer. */
function bulkyGraph(): StateGraph {
  const graph = new StateGraph({ name: 'bulky' });
  const ids = Array.from({ length: 8 }, (_, i) => `n${i}`);
  for (const id of ids) graph.addNode(id, (ctx) => (ctx.put(id, `${id}: ${'some words '.repeat(186)}`), null));
  graph.start(ids[0]!);
  for (let i = 0; i + 1 < ids.length; i++) graph.addEdge(ids[i]!, ids[i + 1]!);
  return graph;
}

/** A node that puts about 1 MB of words into the state (the same key each time) and loops `rounds` times. */
function floodGraph(rounds: number): StateGraph {
  const text = 'many words of text '.repeat(55_000);
  return new StateGraph({ name: 'flood', maxSteps: rounds + 1 })
    .addNode('fill', (ctx) => {
      const n = (ctx.get<number>('n') ?? 0) + 1;
      ctx.put('n', n);
      ctx.put('text', `${n} ${text}`);
      return null;
    })
    .start('fill')
    .addConditionalEdges('fill', (ctx) => ((ctx.get<number>('n') ?? 0) < rounds ? 'again' : 'done'), { again: 'fill', done: END });
}

/** An SSE client over real HTTP that can stop reading: its frames, by `id`, and whether `end` came. */
function httpClient(url: string): Promise<{ res: IncomingMessage; frames: string[]; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      const frames: string[] = [];
      let buffer = '';
      res.setEncoding('utf8');
      const ended = new Promise<void>((done, fail) => {
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let at: number;
          while ((at = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            if (frame.startsWith('id: ')) frames.push(frame);
            if (frame.startsWith('event: end')) done();
          }
        });
        res.on('close', () => fail(new Error(`the stream closed after ${frames.length} events without end`)));
      });
      resolve({ res, frames, ended });
    })
      .on('error', reject)
      .end();
  });
}

/** Counts the calls of `owner[name]` whose first argument passes `match`, until `restore()`. */
function countCalls<T extends object>(owner: T, name: keyof T, match: (arg: unknown) => string | null): { counts: Map<string, number>; restore(): void } {
  const original = owner[name] as (...args: unknown[]) => unknown;
  const counts = new Map<string, number>();
  (owner as Record<keyof T, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
    const key = match(args[0]);
    if (key !== null) counts.set(key, (counts.get(key) ?? 0) + 1);
    return original.apply(this, args);
  };
  return { counts, restore: () => ((owner as Record<keyof T, unknown>)[name] = original) };
}

const gates = new Gates();
const markers = new Map<string, object>();
const wb = testWorkbench({ graphs: [markedGraph(gates, markers), bulkyGraph()], heartbeatMs: 60_000, pollMs: 20, streamBufferBytes: 4096 });
afterAll(() => wb.shutdown());

const stream = async (runId: string, lastEventId?: number) =>
  new SseReader(await wb.app.request(`/api/runs/${runId}/stream`, lastEventId === undefined ? {} : { headers: { 'last-event-id': String(lastEventId) } }));
const start = async (graph: string, message: string) => (await wb.json('/api/runs', { method: 'POST', json: { graph, message } })).body.runId as string;
const typeOf = (m: SseMessage) => (JSON.parse(m.data || '{}') as { type?: string }).type;

/**
 * What one run of the marked graph costs in serialisations (`JSON.stringify` of one of its events,
 * by seq) and in walks of the marker (`Object.keys` of it: what redaction does), with `subscribers`
 * SSE clients following it from its first event — or, with `subscribers` null, run by a bare
 * `RunManager` on the same store (no server: the run's own redaction and storage only).
 */
async function costOfRun(key: string, subscribers: number | null, recorded = false): Promise<{ stringify: Map<string, number>; walks: number; frames: string[][] }> {
  const marker = { note: `marker of ${key}` };
  markers.set(key, marker);
  let runId = '';
  const stringify = countCalls(JSON, 'stringify', (arg) => {
    const event = arg as { runId?: unknown; seq?: unknown } | null;
    return typeof event === 'object' && event !== null && event.runId === runId && runId !== '' && typeof event.seq === 'number' ? String(event.seq) : null;
  });
  // The marker or a redacted copy of it (same note): walking either is work done for this event.
  const keys = countCalls(Object, 'keys', (arg) => (arg === marker || (typeof arg === 'object' && arg !== null && (arg as { note?: unknown }).note === marker.note) ? 'marker' : null));
  try {
    if (subscribers === null) {
      const manager = new RunManager({ store: wb.store, graphs: [markedGraph(gates, markers)] });
      runId = randomUUID();
      const leg = manager.start('marked', { input: key, metadata: { key } }, { runId, ...(recorded ? { recorders: [new MemoryRecorder()] } : {}) });
      for (const id of ['a', 'b', 'c']) gates.open(`${key}:${id}`);
      expect((await leg).status).toBe('completed');
      return { stringify: stringify.counts, walks: keys.counts.get('marker') ?? 0, frames: [] };
    }
    runId = await start('marked', key);
    const readers = await Promise.all(Array.from({ length: subscribers }, () => stream(runId)));
    // Every client has the leg's first events (run.started, node.started a) before the rest happen.
    const heads = await Promise.all(readers.map((r) => r.until((m) => typeOf(m) === 'node.started')));
    for (const id of ['a', 'b', 'c']) gates.open(`${key}:${id}`);
    const tails = await Promise.all(readers.map((r) => r.until((m) => m.event === 'end')));
    const received = tails.map((tail, i) => [...heads[i]!, ...tail]);
    return { stringify: stringify.counts, walks: keys.counts.get('marker') ?? 0, frames: received.map((messages) => messages.map((m) => `${m.id}|${m.data}`)) };
  } finally {
    stringify.restore();
    keys.restore();
  }
}

describe('event fan-out', () => {
  it('serialises and redacts each event once, whatever the number of subscribers', async () => {
    const bare = await costOfRun('bare', null);
    // The same run with a recorder that takes redacted events: the engine redacts each event once
    // for it (the store keeps that copy), as it does for the server's subscribers.
    const recorded = await costOfRun('recorded', null, true);
    const one = await costOfRun('one', 1);
    const many = await costOfRun('many', 40);

    const seqCount = many.frames[0]!.length - 1; // the events, then `end`
    expect(seqCount).toBeGreaterThan(8);
    // From seq 3 on: the events that happened once every client was following the run.
    const perSeq = (counts: Map<string, number>) => Array.from({ length: seqCount - 2 }, (_, i) => counts.get(String(i + 3)) ?? 0);
    // The server adds one serialisation per event (its SSE frame) to what the run itself does, for one client or forty.
    expect(perSeq(one.stringify)).toEqual(perSeq(bare.stringify).map((n) => n + 1));
    expect(perSeq(many.stringify)).toEqual(perSeq(one.stringify));
    // It redacts nothing itself: the marker is walked as often as in a run with a recorder and no server.
    expect(recorded.walks).toBeGreaterThan(0);
    expect(one.walks).toBe(recorded.walks);
    expect(many.walks).toBe(recorded.walks);
    // Every client got the same bytes, and they are the stored events.
    for (const frames of many.frames) expect(frames).toEqual(many.frames[0]);
    const runId = (JSON.parse(many.frames[0]![0]!.split('|')[1]!) as { runId: string }).runId;
    const stored = (await wb.store.listEvents(runId)).map((e) => `${e.seq}|${JSON.stringify(toEventJson(e.data))}`);
    expect(many.frames[0]!.slice(0, -1)).toEqual(stored);
  });

  it('resumes each of many clients that reconnect with Last-Event-ID at the next event, while the leg still runs', async () => {
    const key = 'resume';
    markers.set(key, { note: key });
    const runId = await start('marked', key);
    const readers = await Promise.all(Array.from({ length: 12 }, () => stream(runId)));
    const seen = await Promise.all(readers.map((r) => r.until((m) => typeOf(m) === 'node.started')));
    gates.open(`${key}:a`);
    // Half the clients go away at different points of node b's events; the others stay.
    const leaving = readers.slice(0, 6);
    await Promise.all(leaving.map(async (reader, i) => {
      seen[i]!.push(...(await reader.until((m) => typeOf(m) === (i % 2 === 0 ? 'node.started' : 'node.completed'))));
      await reader.close();
    }));
    gates.open(`${key}:b`);
    await Promise.all(readers.slice(6).map((r, i) => r.until((m) => typeOf(m) === 'node.started' && JSON.parse(m.data).nodeId === 'c').then((ms) => seen[6 + i]!.push(...ms))));
    // Node c has not finished: its start is in the server's live log, maybe not yet in the store.
    const back = await Promise.all(leaving.map((_, i) => stream(runId, Math.max(...seqs(seen[i]!)))));
    gates.open(`${key}:c`);
    const rests = await Promise.all([...back, ...readers.slice(6)].map((r) => r.until((m) => m.event === 'end')));
    const stored = (await wb.store.listEvents(runId)).map((e) => `${e.seq}|${JSON.stringify(toEventJson(e.data))}`);
    expect(stored.length).toBeGreaterThan(10);
    for (let i = 0; i < 12; i++) {
      const all = [...seen[i]!, ...rests[i]!];
      expect(all.at(-1)).toEqual({ event: 'end', data: '{"status":"completed"}' });
      expect(all.filter((m) => m.id !== undefined).map((m) => `${m.id}|${m.data}`)).toEqual(stored);
    }
    expect((await wb.json('/api/health')).body.subscribers).toBe(0);
  });

  it('pauses a client that stops reading once its buffer is full, lets the others finish, and catches it up exactly later', async () => {
    const runId = await start('bulky', 'go');
    const slow = await wb.app.request(`/api/runs/${runId}/stream`);
    const fast = await stream(runId);
    const fastMessages = await fast.until((m) => m.event === 'end');
    expect(fastMessages.at(-1)).toEqual({ event: 'end', data: '{"status":"completed"}' });
    await wb.runs.drain();
    const stored = (await wb.store.listEvents(runId)).map((e) => `${e.seq}|${JSON.stringify(toEventJson(e.data))}`);
    expect(stored.join('').length).toBeGreaterThan(4 * 4096);
    expect(fastMessages.filter((m) => m.id !== undefined).map((m) => `${m.id}|${m.data}`)).toEqual(stored);
    // The slow client has read nothing: it holds at most its 4 KiB (plus one event) and waits, paused.
    expect((await wb.json('/api/health')).body).toMatchObject({ subscribers: 1, pausedSubscribers: 1 });

    const late = await new SseReader(slow).until((m) => m.event === 'end');
    expect(late.at(-1)).toEqual({ event: 'end', data: '{"status":"completed"}' });
    expect(late.filter((m) => m.id !== undefined).map((m) => `${m.id}|${m.data}`)).toEqual(stored);
    expect((await wb.json('/api/health')).body).toMatchObject({ subscribers: 0, pausedSubscribers: 0 });
  });

  it('pauses a client that stops reading over HTTP once its socket and buffer are full, and catches it up exactly later', async () => {
    const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-flood-')), 'runs.db') });
    const server = await startServer({ store, graphs: [floodGraph(10)], port: 0, streamBufferBytes: 64 * 1024 });
    try {
      const started = await fetch(new URL('/api/runs', server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'go' }) });
      const { runId } = (await started.json()) as { runId: string };
      const url = new URL(`/api/runs/${runId}/stream`, server.url).href;
      const slow = await httpClient(url);
      slow.res.pause();
      const fast = await httpClient(url);
      await fast.ended;
      await server.runs.drain();
      const stored = (await store.listEvents(runId)).map((e) => `id: ${e.seq}\ndata: ${JSON.stringify(toEventJson(e.data))}`);
      expect(stored.join('').length).toBeGreaterThan(10_000_000);
      expect(fast.frames).toEqual(stored);
      // 10 MB is more than the kernel's socket buffers take on loopback here (about 5 MB): the slow client's
      // socket and 64 KiB buffer are full, so it is paused, and the others were not held up.
      const health = (await (await fetch(new URL('/api/health', server.url))).json()) as { subscribers: number; pausedSubscribers: number };
      expect(health).toMatchObject({ subscribers: 1, pausedSubscribers: 1 });
      slow.res.resume();
      await slow.ended;
      expect(slow.frames).toEqual(stored);
    } finally {
      await server.stop();
      await store.close();
    }
  }, 120_000);
});
