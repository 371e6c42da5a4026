import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorJson, EventJson, SqliteRunStore, startServer } from '../../src/index.js';
import { quickGraph } from '../fixtures/workbenchGraphs.js';

/**
 * Integer query parameters read as plain decimal digits only: what `Number()` would also take
 * (hexadecimal, exponents, a sign, spaces, a fraction, `Infinity`) is refused, not read as another number.
 */
const NOT_PLAIN_DIGITS = ['0x10', '1e2', ' 5', '5 ', '5.0', '+5', '-1', '1_0', 'Infinity', '0b1', '٣'];

const store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-int-query-')), 'runs.db') });
let server: Awaited<ReturnType<typeof startServer>>;
let runId = '';

beforeAll(async () => {
  server = await startServer({ store, graphs: [quickGraph()], port: 0 });
  for (let i = 0; i < 3; i += 1) {
    const started = await fetch(new URL('/api/runs?wait=true', server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: `m${i}` }) });
    runId = ((await started.json()) as { runId: string }).runId;
  }
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

/** GETs `path` with `param` set to `value` (encoded as a browser does) over HTTP. */
async function get(path: string, param: string, value: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const url = new URL(path, server.url);
  url.searchParams.set(param, value);
  const res = await fetch(url, { headers });
  const body: unknown = await res.json();
  return { status: res.status, body };
}

/** Expects a 400 `bad_request` whose message names the parameter, the digits rule and the value sent. */
function expectRefused(got: { status: number; body: unknown }, name: string, range: string, value: string): void {
  expect(got.status, `${name}=${JSON.stringify(value)}: ${JSON.stringify(got.body)}`).toBe(400);
  const { error } = ErrorJson.parse(got.body);
  expect(error.code).toBe('bad_request');
  expect(error.message).toContain(name);
  expect(error.message).toContain(`a whole number from ${range} in plain decimal digits`);
  expect(error.message).toContain(`received ${JSON.stringify(value)}`);
}

describe('integer query parameters over HTTP', () => {
  it('GET /api/runs ?limit takes plain digits from 1 to 500 and refuses anything else with 400', async () => {
    const two = await get('/api/runs', 'limit', '2');
    expect(two.status).toBe(200);
    expect(two.body).toHaveLength(2);
    expect((await get('/api/runs', 'limit', '500')).body).toHaveLength(3);
    for (const value of [...NOT_PLAIN_DIGITS, '0', '501', '99999999999999999999']) expectRefused(await get('/api/runs', 'limit', value), 'limit', '1 to 500', value);
  });

  it('GET /api/runs/:id/events ?after takes an event seq in plain digits and refuses anything else with 400', async () => {
    const all = await get(`/api/runs/${runId}/events`, 'after', '0');
    expect(all.status).toBe(200);
    const seqs = (all.body as unknown[]).map((e) => EventJson.parse(e).seq);
    expect(seqs.length).toBeGreaterThan(5);
    const after = await get(`/api/runs/${runId}/events`, 'after', '5');
    expect((after.body as unknown[]).map((e) => EventJson.parse(e).seq)).toEqual(seqs.filter((s) => s > 5));
    expect((await get(`/api/runs/${runId}/events`, 'after', '2147483647')).body).toEqual([]);
    for (const value of [...NOT_PLAIN_DIGITS, '2147483648']) expectRefused(await get(`/api/runs/${runId}/events`, 'after', value), '?after', '0 to 2147483647', value);
  });

  it('GET /api/runs/:id/stream refuses a ?lastEventId or Last-Event-ID that is not plain digits with 400, before streaming', async () => {
    for (const value of NOT_PLAIN_DIGITS) {
      expectRefused(await get(`/api/runs/${runId}/stream`, 'lastEventId', value), 'Last-Event-ID', '0 to 2147483647', value);
      // A header carries ASCII only, and its value is sent trimmed (a spaced one arrives as plain digits).
      if (value.trim() !== value || !/^[\x21-\x7e]+$/.test(value)) continue;
      const res = await fetch(new URL(`/api/runs/${runId}/stream`, server.url), { headers: { 'last-event-id': value } });
      expectRefused({ status: res.status, body: await res.json() }, 'Last-Event-ID', '0 to 2147483647', value);
    }
  });

  it('GET /api/graphs/:name/analytics ?since takes epoch ms in plain digits and refuses anything else with 400', async () => {
    const all = await get('/api/graphs/quick/analytics', 'since', '0');
    expect(all.status).toBe(200);
    expect((all.body as { analyses: { quick: { runs: number } } }).analyses.quick.runs).toBe(3);
    const later = await get('/api/graphs/quick/analytics', 'since', String(Date.now() + 86_400_000));
    expect((later.body as { analyses: { quick: { runs: number } } }).analyses.quick.runs).toBe(0);
    for (const value of [...NOT_PLAIN_DIGITS, '253402300800000']) expectRefused(await get('/api/graphs/quick/analytics', 'since', value), 'since', '0 to 253402300799999', value);
  });
});
