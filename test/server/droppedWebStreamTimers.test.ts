import { afterEach, describe, expect, it, vi } from 'vitest';
import { StateGraph } from '../../src/index.js';
import { testWorkbench } from './workbenchTarget.js';

/** a ⇄ b for 24 steps, each putting about 22 KB into the state: far more than a 4 KiB stream buffer. */
function bulkyLoop(): StateGraph {
  const put = (ctx: { put(key: string, value: unknown): void; get<T>(key: string): T | undefined }) => {
    const n = (ctx.get<number>('n') ?? 0) + 1;
    ctx.put('n', n);
    ctx.put('blob', `${n}:${'some words '.repeat(2048)}`);
    return null;
  };
  return new StateGraph({ name: 'bulky-loop', maxSteps: 24 }).addNode('a', put).addNode('b', put).start('a').addEdge('a', 'b').addEdge('b', 'a');
}

afterEach(() => vi.restoreAllMocks());

describe('an in-process event-stream client that stops reading', () => {
  it('is dropped, and the stream leaves no interval running behind it', async () => {
    const wb = testWorkbench({ graphs: [bulkyLoop()], streamBufferBytes: 4096, streamStallMs: 40 });
    try {
      const { body } = await wb.json('/api/runs', { method: 'POST', json: { message: 'go' } });
      await wb.runs.drain(30_000);
      const created = new Set<unknown>();
      const cleared = new Set<unknown>();
      const set = globalThis.setInterval;
      const clear = globalThis.clearInterval;
      vi.spyOn(globalThis, 'setInterval').mockImplementation(((fn: () => void, ms?: number) => {
        const handle = set(fn, ms);
        created.add(handle);
        return handle;
      }) as typeof setInterval);
      vi.spyOn(globalThis, 'clearInterval').mockImplementation(((handle?: Parameters<typeof clearInterval>[0]) => {
        cleared.add(handle);
        clear(handle);
      }) as typeof clearInterval);
      const response = await wb.app.request(`/api/runs/${body.runId}/stream`);
      expect(response.status).toBe(200);
      // The stream is never read: well past streamStallMs, plus several of the watch's ticks.
      await new Promise((r) => setTimeout(r, 600));
      // It was dropped: reading it now ends in the error it was closed with, before the end event.
      await expect(response.text()).rejects.toThrow(/stopped reading/);
      expect(created.size).toBeGreaterThanOrEqual(2);
      expect([...created].filter((h) => !cleared.has(h))).toEqual([]);
    } finally {
      vi.restoreAllMocks();
      await wb.shutdown();
    }
  }, 30_000);
});
