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

  it('redacts what JSON would write from boxed values, errors, dates and array subclasses, and secrets in keys', () => {
    const disguised = Object.defineProperty(Object.setPrototypeOf(new String('ok'), Object.prototype) as object, 'toString', { value: () => `s ${key}`, enumerable: false });
    class Species extends Array<unknown> {
      static override get [Symbol.species](): ArrayConstructor {
        return function (this: unknown, n: number) {
          return Object.defineProperty(new Array(n), 'toJSON', { value: () => key });
        } as unknown as ArrayConstructor;
      }
    }
    const error = Object.assign(new Error(`m ${key}`), { name: `Bearer ${'n'.repeat(12)}`, code: { apiKey: 'abcdefghijkl', note: key } });
    const value = {
      boxed: new String(key),
      number: new Number(3),
      disguised,
      error,
      when: Object.assign(new Date(0), { toISOString: () => `d ${key}` }),
      invalid: new Date(Number.NaN),
      list: Species.from([{ apiKey: 'abcdefghijkl' }]),
      [`k ${key}`]: 1,
    };
    const out = redactForOutput(value, [key]);
    const text = JSON.stringify(out);
    expect(text).not.toContain(key);
    expect(text).not.toContain('abcdefghijkl');
    expect(text).not.toContain('nnnnnnnn');
    expect(JSON.parse(text)).toEqual({
      boxed: REDACTED,
      number: 3,
      disguised: `s ${REDACTED}`,
      error: { name: `Bearer ${REDACTED}`, message: `m ${REDACTED}`, code: { apiKey: REDACTED, note: REDACTED } },
      when: `d ${REDACTED}`,
      invalid: null,
      list: [{ apiKey: REDACTED }],
      [`k ${REDACTED}`]: 1,
    });
    // A stored snapshot: the same strings and keys scrubbed, a `__proto__` key kept as a key.
    const state = JSON.parse(`{"__proto__":{"role":"admin"},"note":"n ${key}","k ${key}":1}`) as object;
    const stored = storableSnapshot({ state, disguised }, [key]) as { state: object };
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(Object.keys(stored.state)).toEqual(['__proto__', 'note', `k ${REDACTED}`]);
  });

  it('takes credential keys by their ending and credential assignments in text, not words that only look alike', () => {
    const keys = { openai_api_key: 'v1v1v1v1v1', googleApiKey: 'v2v2v2v2v2', 'x-goog-api-key': 'v3v3v3v3v3', auth_token: 'v4v4v4v4v4', private_key: 'v5v5v5v5v5', clientSecret: 'v6v6v6v6v6', 'X-Auth-Token': 'v7v7v7v7v7' };
    expect(Object.values(redactForOutput(keys, []) as object)).toEqual(Object.keys(keys).map(() => REDACTED));
    const kept = { tokens: 12, maxTokens: 100, token: 'a word', session: 'id-1', keyboard: 'qwerty' };
    expect(redactForOutput(kept, [])).toEqual(kept);
    const body = JSON.stringify({ refresh_token: 'rt-9f8e7d6c5b4a', client_secret: 'cs-0a1b2c3d4e5f', password: 'hunter2hunter2' });
    expect(scrubString(`${body} OPENAI_API_KEY=abcdefghijkl oauth_token: zzzzzzzzzz`, [])).toBe(
      `{"refresh_token":"${REDACTED}","client_secret":"${REDACTED}","password":"${REDACTED}"} OPENAI_API_KEY=${REDACTED} oauth_token: ${REDACTED}`,
    );
    expect(scrubString('the password is long, a secret plan, tokens: 1234567', [])).toBe('the password is long, a secret plan, tokens: 1234567');
  });

  it('scrubs a long hostile text: a credential after 100,000 characters of word boundaries', () => {
    // Each pattern is linear in the text (a few ms here). A pattern with a prefix that backtracks over
    // every word boundary is quadratic: this text took about 7 s with one (and 400,000 characters
    // about 110 s), which shows as a slow test; the speed itself is not asserted here.
    const text = `${'a-'.repeat(50_000)} password=hunter2hunter2 ${'b '.repeat(25_000)}api_key: kkkkkkkkkkkk`;
    const out = scrubString(text, []);
    expect(out).not.toContain('hunter2hunter2');
    expect(out.endsWith(`api_key: ${REDACTED}`)).toBe(true);
    expect(out.length).toBe(text.length - 'hunter2hunter2'.length - 'kkkkkkkkkkkk'.length + 2 * REDACTED.length);
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
