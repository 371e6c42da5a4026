import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { SqliteRunStore, StateGraph, startServer, type RunningServer } from '../../src/index.js';

/** a ⇄ b for 48 steps, each putting 528 KB of text into the state: about 25 MB of events, several times what a loopback connection whose reader stopped takes in (about 4 MB here). */
function floodGraph(): StateGraph {
  const put = (ctx: { put(key: string, value: unknown): void; get<T>(key: string): T | undefined }) => {
    const n = (ctx.get<number>('n') ?? 0) + 1;
    ctx.put('n', n);
    ctx.put('blob', `${n}:${'some words '.repeat(48 * 1024)}`);
    return null;
  };
  return new StateGraph({ name: 'flood', maxSteps: 48 }).addNode('a', put).addNode('b', put).start('a').addEdge('a', 'b').addEdge('b', 'a');
}

/** GETs a run's stream over a raw socket; reading as `read` says (never, or a slice at a time). */
function rawStream(server: RunningServer, runId: string, read: 'never' | 'slowly'): { socket: Socket; received: () => string } {
  const url = new URL(server.url);
  const socket = connect(Number(url.port), url.hostname);
  let text = '';
  socket.on('error', () => undefined);
  socket.write(`GET /api/runs/${runId}/stream HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
  if (read === 'never') socket.pause();
  else {
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      // A slow reader: a pause after each piece, but it keeps reading.
      socket.pause();
      setTimeout(() => socket.resume(), 2);
    });
  }
  return { socket, received: () => text };
}

async function health(server: RunningServer): Promise<{ subscribers: number; pausedSubscribers: number }> {
  return (await (await fetch(new URL('/api/health', server.url))).json()) as { subscribers: number; pausedSubscribers: number };
}

describe('an event-stream client that stops reading', () => {
  it('is dropped once its connection has taken nothing for streamStallMs; a slow reader that keeps reading is not', async () => {
    const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-stall-')), 'runs.db') });
    const server = await startServer({ store, graphs: [floodGraph()], port: 0, streamBufferBytes: 64 * 1024, streamStallMs: 400 });
    try {
      const started = await fetch(new URL('/api/runs', server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'go' }) });
      const { runId } = (await started.json()) as { runId: string };
      await server.runs.drain(60_000);
      const stalled = rawStream(server, runId, 'never');
      const slow = rawStream(server, runId, 'slowly');
      // The stalled client reads nothing for well over streamStallMs, then everything it can.
      await new Promise((r) => setTimeout(r, 3_000));
      let got = '';
      const closed = new Promise<void>((resolve) => stalled.socket.once('close', () => resolve()));
      stalled.socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
      stalled.socket.resume();
      await closed;
      // Dropped: its stream stops short of the end event, and the server holds nothing for it.
      expect(got).not.toContain('event: end');
      const seen = [...got.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      await until('the dropped client to be unsubscribed', async () => (await health(server)).subscribers <= 1, { ms: 5_000 });
      // Reconnecting from its last id (as EventSource does) gives it the rest, each event once.
      const rest = await fetch(new URL(`/api/runs/${runId}/stream`, server.url), { headers: { 'last-event-id': String(seen.at(-2) ?? 0) } });
      const restIds = [...(await rest.text()).matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      const stored = (await store.listEvents(runId)).map((e) => e.seq);
      expect(seen.length).toBeLessThan(stored.length);
      expect([...seen.slice(0, -1), ...restIds]).toEqual(stored);
      // The slow one read everything, to the end event.
      await until('the slow reader to read to the end event', () => slow.received().includes('event: end'), { ms: 60_000 });
      const ids = [...slow.received().matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      expect(ids).toEqual(stored);
      slow.socket.destroy();
      await until('no subscriber left', async () => (await health(server)).subscribers === 0, { ms: 5_000 });
    } finally {
      await server.stop();
      await store.close();
    }
  }, 120_000);

  it('refuses a streamStallMs that is no whole number of milliseconds, naming it', async () => {
    const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-stall-')), 'runs.db') });
    try {
      for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 31, '100']) {
        await expect(startServer({ store, graphs: [floodGraph()], port: 0, streamStallMs: bad as number }), String(bad)).rejects.toMatchObject({ code: 'server_config', message: expect.stringContaining('streamStallMs') });
      }
    } finally {
      await store.close();
    }
  });
});
