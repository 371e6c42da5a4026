import { describe, expect, it } from 'vitest';
import { redactEvent } from '../../src/trace/TraceEvent.js';
import { scrubString } from '../../src/trace/redact.js';

const MB9 = 9_000_000;

describe('scrubbing text of many megabytes', () => {
  it('replaces a 9 MB base64 run as it does a short one, without overflowing the stack', () => {
    expect(scrubString('y'.repeat(MB9), [])).toBe('[binary]');
    expect(scrubString(`file: ${'QUJD'.repeat(MB9 / 4)}== end`, [])).toBe('file: [binary] end');
  });

  it('leaves nothing of a 9 MB data URL, token or key it cannot scan with its patterns', () => {
    for (const text of [`data:image/png;base64,${'A'.repeat(MB9)}`, `Bearer ${'a'.repeat(MB9)}`, `api_key=${'k'.repeat(MB9)}`, `sk-${'s'.repeat(MB9)}`]) {
      const out = scrubString(text, []);
      expect(out.length, text.slice(0, 20)).toBeLessThan(1000);
      expect(out).not.toMatch(/(AAAAAAAA|aaaaaaaa|kkkkkkkk|ssssssss)/);
    }
  });

  it('gives what the regular expression gives on 3,000 mixed texts', () => {
    const regex = /[A-Za-z0-9+/]{256,}={0,2}/g;
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed);
    const alphabet = 'Ab9+/= .-_\n';
    for (let n = 0; n < 3000; n++) {
      let text = '';
      const parts = next() % 6;
      for (let p = 0; p < parts; p++) {
        const run = next() % 600;
        const ch = alphabet[next() % alphabet.length]!;
        text += next() % 2 === 0 ? ch.repeat(run) : Array.from({ length: run % 40 }, () => alphabet[next() % alphabet.length]).join('');
      }
      expect(scrubString(text, []), JSON.stringify(text.slice(0, 80))).toBe(scrubString(text.replace(regex, '[binary]'), []));
    }
  });

  it('keeps an event with a 9 MB value readable: the value is scrubbed, the rest is kept', () => {
    const event = { type: 'node.completed', runId: 'r', seq: 6, at: 1, traceId: 't', spanId: 's', parentSpanId: null, path: 'root', nodeId: 'b', step: 2, durationMs: 3, result: null, delta: { set: { second: 'y'.repeat(MB9) }, deleted: [] } };
    const redacted = redactEvent(event as never, []) as unknown as Record<string, unknown>;
    expect(redacted['unreadable']).toBeUndefined();
    expect(redacted).toMatchObject({ type: 'node.completed', step: 2, delta: { set: { second: '[binary]' } } });
  });
});
