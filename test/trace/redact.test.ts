import { describe, expect, it } from 'vitest';
import { REDACTED, redactEvent, redactForOutput, scrubString, type WorkflowEvent } from '../../src/index.js';
import { storableSnapshot } from '../../src/trace/redact.js';

const key = 'sk-test-0123456789abcdefghijklmnop';
const png = `data:image/png;base64,${'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk'.repeat(4)}`;
const blob = 'QUJD'.repeat(100);

describe('redaction', () => {
  it('replaces secret values, provider keys and credentials inside strings', () => {
    expect(scrubString(`key is ${key}!`, [key])).toBe(`key is ${REDACTED}!`);
    expect(scrubString('use sk-abcdefghijklmnopqrstuvwx now', [])).toBe(`use ${REDACTED} now`);
    expect(scrubString('Authorization: Bearer abc.def-ghi_jkl', [])).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(scrubString('auth was Basic dXNlcjpwYXNzd29yZA==', [])).toBe(`auth was Basic ${REDACTED}`);
    expect(scrubString('GET /v1?api_key=abcdef123456&x=1', [])).toBe(`GET /v1?api_key=${REDACTED}&x=1`);
    expect(scrubString('{"x-api-key": "abcdef123456"}', [])).toBe(`{"x-api-key": "${REDACTED}"}`);
  });

  it('replaces inline images and long base64 blobs inside strings', () => {
    expect(scrubString(`look: ${png} ok`, [])).toBe('look: [image] ok');
    expect(scrubString(`raw ${blob} end`, [])).toBe('raw [binary] end');
  });

  it('leaves ordinary text alone', () => {
    const texts = [
      'Refund for SO20261001: approved',
      'The authorization was approved by the manager.',
      'see https://example.com/a/b?c=d#e',
      'a'.repeat(40),
      'deadbeef'.repeat(8),
      'short',
    ];
    for (const text of texts) expect(scrubString(text, [key])).toBe(text);
  });

  it('redacts secret keys, drops __ keys and turns bytes into [binary]', () => {
    const out = redactForOutput(
      {
        headers: { Authorization: 'Bearer x', 'x-api-key': 'k', 'content-type': 'json' },
        apiKey: key,
        __internal: { secret: 1 },
        bytes: Buffer.from('hello'),
        typed: new Uint8Array([1, 2]),
        bufferJson: Buffer.from('hi').toJSON(),
        nested: [{ image: png, keep: 1 }],
        map: new Map([['a', key]]),
        error: Object.assign(new Error(`failed with ${key}`), { code: 'bad' }),
        fn: () => 1,
      },
      [key],
    );
    expect(out).toEqual({
      headers: { Authorization: REDACTED, 'x-api-key': REDACTED, 'content-type': 'json' },
      apiKey: REDACTED,
      bytes: '[binary]',
      typed: '[binary]',
      bufferJson: '[binary]',
      nested: [{ image: '[image]', keep: 1 }],
      map: { a: REDACTED },
      error: { name: 'Error', message: `failed with ${REDACTED}`, code: 'bad' },
    });
  });

  it('follows toJSON and survives cycles', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(redactForOutput(cyclic, [])).toEqual({ a: 1, self: '[cycle]' });
    expect(redactForOutput({ when: new Date(0), custom: { toJSON: () => ({ token: 'x', __hidden: 1 }) } }, [])).toEqual({
      when: '1970-01-01T00:00:00.000Z',
      custom: { token: 'x' },
    });
  });

  it('follows a toJSON JSON.stringify would call however it is defined: not enumerable, an array\'s own, inherited, one that returns its own value', () => {
    const hidden = Object.defineProperty({ id: 1 }, 'toJSON', { value: () => ({ note: `n ${key}` }), enumerable: false });
    const list = Object.assign(['ok'], { toJSON: () => `l ${key}` });
    class Tagged extends Array<unknown> {
      toJSON(): unknown {
        return { tag: key };
      }
    }
    const itself: Record<string, unknown> = { text: key };
    itself.toJSON = () => itself;
    const value = { hidden, list, tagged: Tagged.from([1]), itself, when: new Date(0) };
    const expected = { hidden: { note: `n ${REDACTED}` }, list: `l ${REDACTED}`, tagged: { tag: REDACTED }, itself: { text: REDACTED }, when: '1970-01-01T00:00:00.000Z' };
    // The redacted copy given to recorders, and the snapshot a store keeps (as JSON).
    expect(JSON.parse(JSON.stringify(redactForOutput(value, [key])))).toEqual({ ...expected, itself: '[cycle]' });
    const stored = JSON.stringify(storableSnapshot(value, [key]));
    expect(stored).not.toContain(key);
    expect(JSON.parse(stored)).toEqual(expected);
    // Nothing to scrub: the snapshot is kept as it is.
    const plain = { list: Object.assign(['ok'], { toJSON: () => 'fine' }) };
    expect(storableSnapshot(plain, [key])).toBe(plain);
  });

  it('keeps the envelope of an event', () => {
    const event = { type: 'node.completed', runId: 'r', seq: 3, at: 1, traceId: 't', spanId: 's', parentSpanId: 'p', path: 'root', nodeId: 'a', result: { outputText: key } };
    expect(redactEvent(event as unknown as WorkflowEvent, [key])).toEqual({ ...event, result: { outputText: REDACTED } });
  });

  it('scrubs a string it saw clean before once a list of secrets names it, and scans envelope names below the top level', () => {
    const value = 'token-value-7f3a9c2e';
    const event = (extra: Record<string, unknown>) =>
      ({ type: 'node.completed', runId: 'r', seq: 1, at: 1, traceId: 't', spanId: 's', parentSpanId: null, path: 'root', nodeId: 'a', ...extra }) as unknown as WorkflowEvent;
    for (let i = 0; i < 3; i++) expect(redactEvent(event({ note: value }), [])).toMatchObject({ note: value });
    expect(redactEvent(event({ note: value }), [value])).toMatchObject({ note: REDACTED });
    expect(redactForOutput({ note: value }, [value])).toEqual({ note: REDACTED });
    // `traceId` and `seq` are copied as they are only in the event's own envelope, not inside its data or lists.
    const nested = redactEvent(event({ items: [{ traceId: value }, { traceId: value, seq: key }], data: { spanId: key } }), [value, key]);
    expect(nested).toMatchObject({ items: [{ traceId: REDACTED }, { traceId: REDACTED, seq: REDACTED }], data: { spanId: REDACTED } });
  });
});
