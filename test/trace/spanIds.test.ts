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
});
