import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { newSpanId, newTraceId } from '../../src/trace/TraceContext.js';

describe('span and trace ids', () => {
  it('are OpenTelemetry hex ids, unique across many refills of their random pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const span = newSpanId();
      expect(span).toMatch(/^[0-9a-f]{16}$/);
      seen.add(span);
      if (i % 97 === 0) expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(seen.size).toBe(20_000);
  });

  it('are their own strings: ids kept for long do not keep the random pool they came from alive', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const kept: string[] = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    // One id kept in every 600 made (more than a pool's worth), as a stored run keeps its trace ids.
    for (let i = 0; i < 2_000 * 600; i++) {
      const span = newSpanId();
      if (i % 600 === 0) kept.push(newTraceId(), span);
    }
    gc();
    const perId = (process.memoryUsage().heapUsed - before) / kept.length;
    // A 32-digit string is about 50 bytes; a view into a pool would keep about 4 KiB per id here.
    expect(perId).toBeLessThan(500);
    expect(new Set(kept).size).toBe(kept.length);
  });
});
