import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteRunStore, StateGraph, startServer, toEventJson } from '../../src/index.js';

/** Eight nodes, each putting about 2 KB into the state: each event is larger than half a 4 KiB buffer. */
function bulkyGraph(): StateGraph {
  const graph = new StateGraph({ name: 'bulky' });
  const ids = Array.from({ length: 8 }, (_, i) => `n${i}`);
  for (const id of ids) graph.addNode(id, (ctx) => (ctx.put(id, `${id}: ${'some words '.repeat(186)}`), null));
  graph.start(ids[0]!);
  for (let i = 0; i + 1 < ids.length; i++) graph.addEdge(ids[i]!, ids[i + 1]!);
  return graph;
}

/** The `id:`/`data:` frames of an SSE body read to its end, and whether `event: end` came. */
async function readAll(response: Response): Promise<{ frames: string[]; ended: boolean }> {
  const text = await response.text();
  const blocks = text.split('\n\n');
  return { frames: blocks.filter((b) => b.startsWith('id: ')), ended: blocks.some((b) => b.startsWith('event: end')) };
}

describe('event stream with a buffer smaller than the socket’s', () => {
  it('delivers every event to a client that reads at once when streamBufferBytes is below the socket high-water mark', async () => {
    const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-smallbuf-')), 'runs.db') });
    // 4 KiB is below a socket's own write buffer (16 KiB on Node 20, 64 KiB later): a client paused
    // there was never told its socket had room again, as no 'drain' follows a write the socket took.
    const server = await startServer({ store, graphs: [bulkyGraph()], port: 0, streamBufferBytes: 4096 });
    try {
      for (let trial = 0; trial < 3; trial++) {
        const started = await fetch(new URL('/api/runs', server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'go' }) });
        const { runId } = (await started.json()) as { runId: string };
        const { frames, ended } = await readAll(await fetch(new URL(`/api/runs/${runId}/stream`, server.url)));
        await server.runs.drain();
        const stored = (await store.listEvents(runId)).map((e) => `id: ${e.seq}\ndata: ${JSON.stringify(toEventJson(e.data))}`);
        expect(stored.join('').length).toBeGreaterThan(4 * 4096);
        expect(ended).toBe(true);
        expect(frames).toEqual(stored);
      }
      const health = (await (await fetch(new URL('/api/health', server.url))).json()) as { subscribers: number; pausedSubscribers: number };
      expect(health).toMatchObject({ subscribers: 0, pausedSubscribers: 0 });
    } finally {
      await server.stop();
      await store.close();
    }
  }, 20_000);
});
