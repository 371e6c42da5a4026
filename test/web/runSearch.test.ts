import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, type RunningServer } from '../../src/index.js';
import { approvalGraph, quickGraph } from '../fixtures/workbenchGraphs.js';
import type { LaunchedBrowser } from '../support/launchBrowser.js';
import { openWorkbench } from '../support/openWorkbench.js';

let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;
let page: Page;
const ids: Record<string, string> = {};

const MESSAGES = {
  percent: 'Am I 100% covered?',
  underscore: 'order_id SO1',
  injection: "x'); DROP TABLE runs; --",
  unicode: 'Rückgabe für Café 東京 😀',
  waiting: 'approve refund_fast please',
};

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-web-search-')), 'runs.db') });
  ({ server, browser, page } = await openWorkbench({ store, graphs: [quickGraph(), approvalGraph()] }));
  for (const [key, message] of Object.entries(MESSAGES)) {
    const res = await fetch(new URL('/api/runs?wait=true', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ graph: key === 'waiting' ? 'approval' : 'quick', message }),
    });
    ids[key] = ((await res.json()) as { runId: string }).runId;
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
});

const named = (...keys: (keyof typeof MESSAGES)[]) => keys.map((k) => ids[k]!).sort();

/** Sets the filters in the page and returns the run ids the list then shows, checked against the API's answer to the same query. */
async function filterTo(filters: { search?: string; status?: string; graph?: string }): Promise<string[]> {
  await page.fill('#runs-search', filters.search ?? '');
  await page.selectOption('#runs-status', filters.status ?? '');
  await page.selectOption('#runs-graph', filters.graph ?? '');
  const query = new URLSearchParams({ limit: '50' });
  if (filters.search) query.set('search', filters.search);
  if (filters.status) query.set('status', filters.status);
  if (filters.graph) query.set('graph', filters.graph);
  await page.waitForSelector(`#history[data-query="${query.toString().replace(/"/g, '\\"')}"]`);
  const shown = ((await page.evaluate(`[...document.querySelectorAll('#history .run-item')].map((li) => li.dataset.runId)`)) as string[]).sort();
  const fromApi = ((await (await fetch(new URL(`/api/runs?${query}`, server.url))).json()) as Array<{ runId: string }>).map((r) => r.runId).sort();
  expect(shown).toEqual(fromApi);
  return shown;
}

describe('run search and filters in the workbench', () => {
  it('lists the runs whose input holds the text, literally, as the API does', async () => {
    await page.click('#refresh-runs');
    await page.waitForFunction(`document.querySelectorAll('#history .run-item').length === ${Object.keys(MESSAGES).length}`);
    expect(await filterTo({ search: '100%' })).toEqual(named('percent'));
    expect(await filterTo({ search: '_' })).toEqual(named('underscore', 'waiting'));
    expect(await filterTo({ search: 'café 東京 😀' })).toEqual(named('unicode'));
    expect(await filterTo({ search: "'); DROP TABLE runs; --" })).toEqual(named('injection'));
    expect(await filterTo({})).toHaveLength(Object.keys(MESSAGES).length);
  }, 60_000);

  it('filters by status and graph, alone and with text, and says when nothing matches', async () => {
    expect(await filterTo({ status: 'waiting' })).toEqual(named('waiting'));
    expect(await filterTo({ graph: 'quick' })).toEqual(named('percent', 'underscore', 'injection', 'unicode'));
    expect(await filterTo({ search: '_', graph: 'quick' })).toEqual(named('underscore'));
    expect(await filterTo({ search: 'no such text', status: 'completed' })).toEqual([]);
    expect(await page.textContent('#history')).toContain('No stored runs match.');
  }, 60_000);

  it('shows the API\'s refusal of a search with a control character instead of a list', async () => {
    await page.selectOption('#runs-status', '');
    await page.evaluate(`(() => { const input = document.querySelector('#runs-search'); input.value = 'a\\u0001b'; input.dispatchEvent(new Event('input')); })()`);
    await page.waitForSelector('#runs-error:not([hidden])');
    expect(await page.textContent('#runs-error')).toContain('search must not contain control characters');
    expect(await filterTo({})).toHaveLength(Object.keys(MESSAGES).length);
    expect(await page.isHidden('#runs-error')).toBe(true);
  }, 60_000);
});
