import { describe, expect, it } from 'vitest';
import { StateGraph } from '../../src/index.js';

function stackDepth(): number {
  return (new Error().stack ?? '').split('\n').length;
}

describe('long runs', () => {
  it('runs a 10,000-step loop with no stack growth and flat memory', async () => {
    expect(typeof globalThis.gc).toBe('function');
    const depths: number[] = [];
    const heap: number[] = [];
    const graph = new StateGraph({ maxSteps: 10_000 })
      .addNode('a', (ctx) => {
        const n = (ctx.get<number>('n') ?? 0) + 1;
        ctx.put('n', n);
        if (n === 10 || n === 4_990) depths.push(stackDepth());
        if (n === 500 || n === 4_500) {
          globalThis.gc?.();
          heap.push(process.memoryUsage().heapUsed);
        }
        return null;
      })
      .addNode('b', () => null)
      .start('a')
      .addEdge('a', 'b')
      .addEdge('b', 'a');
    const run = await graph.run('x', { maxSteps: 10_000 });
    expect(run.status).toBe('max-steps');
    expect(run.steps).toBe(10_000);
    expect(run.state.get('n')).toBe(5_000);
    expect(depths).toHaveLength(2);
    expect(depths[1]).toBe(depths[0]);
    // 8,000 steps in between: only the path grows (a few hundred KB at most).
    expect(heap[1]! - heap[0]!).toBeLessThan(8 * 1024 * 1024);
  });
});
