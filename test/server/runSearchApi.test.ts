import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorJson, RunSummaryJson } from '../../src/index.js';
import { approvalGraph, quickGraph } from '../fixtures/workbenchGraphs.js';
import { testWorkbench } from './workbenchTarget.js';

const wb = testWorkbench({ graphs: [quickGraph(), approvalGraph()] });
afterAll(() => wb.shutdown());

const MESSAGES = {
  percent: 'Am I 100% covered?',
  underscore: 'order_id SO1',
  quotes: `it's "quoted" \\ back`,
  unicode: 'Rückgabe für Café 東京 😀',
  injection: "x'); DROP TABLE runs; --",
  waiting: 'approve refund_fast please',
};
const ids: Record<string, string> = {};

beforeAll(async () => {
  for (const [key, message] of Object.entries(MESSAGES)) {
    const graph = key === 'waiting' ? 'approval' : 'quick';
    const started = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph, message } });
    ids[key] = started.body.runId;
  }
});

/** The run ids `GET /api/runs` lists for these query parameters (encoded as a browser does). */
async function listed(query: Record<string, string>): Promise<string[]> {
  const got = await wb.json(`/api/runs?${new URLSearchParams(query)}`);
  expect(got.status, JSON.stringify(got.body)).toBe(200);
  return (got.body as unknown[]).map((r) => RunSummaryJson.parse(r).runId).sort();
}
const named = (...keys: string[]) => keys.map((k) => ids[k]!).sort();

describe('GET /api/runs search and filters', () => {
  it('finds runs by text in their input, literally: %, _, quotes, backslash, unicode, SQL', async () => {
    expect(await listed({ search: '%' })).toEqual(named('percent'));
    expect(await listed({ search: '_' })).toEqual(named('underscore', 'waiting'));
    expect(await listed({ search: `"quoted" \\` })).toEqual(named('quotes'));
    expect(await listed({ search: 'café 東京 😀' })).toEqual(named('unicode'));
    expect(await listed({ search: "'); DROP TABLE runs; --" })).toEqual(named('injection'));
    expect(await listed({})).toHaveLength(Object.keys(MESSAGES).length);
  });

  it('finds a run by part of its id and by its answer', async () => {
    expect(await listed({ search: ids['quotes']!.slice(4, 16).toUpperCase() })).toEqual(named('quotes'));
    // quick answers `<input>+1+2+3`.
    expect(await listed({ search: 'covered?+1+2+3' })).toEqual(named('percent'));
  });

  it('combines search with status and graph; empty parameters mean no filter', async () => {
    expect(await listed({ search: '_', status: 'waiting' })).toEqual(named('waiting'));
    expect(await listed({ search: '_', graph: 'quick' })).toEqual(named('underscore'));
    expect(await listed({ search: '_', graph: 'quick', status: 'waiting' })).toEqual([]);
    expect(await listed({ status: 'completed', graph: 'quick' })).toEqual(named('percent', 'underscore', 'quotes', 'unicode', 'injection'));
    expect(await listed({ search: '', status: '', graph: '' })).toHaveLength(Object.keys(MESSAGES).length);
  });

  it('takes a % left unencoded in the address as the character', async () => {
    const got = await wb.json('/api/runs?search=100%');
    expect(got.status).toBe(200);
    expect(got.body.map((r: { runId: string }) => r.runId)).toEqual([ids['percent']]);
  });

  it('answers an address whose escapes are not UTF-8 without failing (the text is taken as it was sent)', async () => {
    const got = await wb.json('/api/runs?search=%ED%A0%80');
    expect(got.status).toBe(200);
    expect(got.body).toEqual([]);
  });

  it('refuses a bad status or limit, a control character, a blank or an oversized search with bad_request naming the parameter', async () => {
    for (const [query, says] of [
      ['status=sleeping', 'status'],
      ['search=a%00b', 'search must not contain control characters'],
      ['search=%20%20', 'search must not be blank'],
      [`search=${'x'.repeat(201)}`, 'search must be at most 200 characters'],
      ['limit=0', 'limit'],
    ] as const) {
      const got = await wb.json(`/api/runs?${query}`);
      expect(got.status, query).toBe(400);
      const error = ErrorJson.parse(got.body).error;
      expect(error.code).toBe('bad_request');
      expect(error.message, query).toContain(says);
    }
  });
});
