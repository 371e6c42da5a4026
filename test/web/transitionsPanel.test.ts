import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, type RunningServer } from '../../src/index.js';
import { graphs } from '../fixtures/analyticsGraphs.js';
import type { LaunchedBrowser } from '../support/launchBrowser.js';
import { openWorkbench } from '../support/openWorkbench.js';

let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;
let page: Page;
const dir = mkdtempSync(join(tmpdir(), 'sb-web-transitions-'));

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(dir, 'runs.db') });
  // Stored desk runs b, b, t→b, o: from classify billing 0.6, tech 0.2, other 0.2; tech always back.
  for (const input of ['b', 'b', 't,b', 'o']) await graphs[0]!.run(input, { store });
  ({ server, browser, page } = await openWorkbench({ store, graphs: [...graphs] }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const cell = (from: string, to: string) => `#transitions .heatmap td[data-from="${from}"][data-to="${to}"]`;
const edge = (from: string, to: string) => `#graph .edge[data-from="${from}"][data-to="${to}"]`;

describe('the transitions panel', () => {
  it('shows the stored runs’ transition matrix as a heat map and each edge’s probability on the graph', async () => {
    await page.click('#analyze');
    await page.waitForSelector('body[data-analyzed="desk"]');
    expect(await page.textContent(cell('classify', 'billing'))).toBe('0.60');
    expect(await page.textContent(cell('classify', 'tech'))).toBe('0.20');
    expect(await page.textContent(cell('tech', 'classify'))).toBe('1.00');
    expect(await page.textContent(cell('other', '__end__:failed'))).toBe('1.00');
    expect(await page.textContent(cell('billing', 'tech'))).toBe('');
    // Shaded by probability: a certain hop is darker than a 0.2 one, an impossible one is not shaded.
    const alpha = async (selector: string) => Number(/rgba\([^)]*,\s*([\d.]+)\)/.exec((await page.getAttribute(selector, 'style')) ?? '')?.[1] ?? 0);
    expect(await alpha(cell('tech', 'classify'))).toBeGreaterThan(await alpha(cell('classify', 'tech')));
    expect(await alpha(cell('billing', 'tech'))).toBe(0);
    expect(await page.textContent('#transitions .transition-figures')).toContain('4 runs · 14 transitions · ends: completed 75.0%, failed 25.0% · expected steps 2.50');
    expect(await page.textContent('#transitions .transition-loops')).toContain('classify → tech → classify ×1');
    // The same figures on the graph's edges.
    expect(Number(await page.getAttribute(edge('classify', 'billing'), 'data-probability'))).toBeCloseTo(0.6, 12);
    expect(await page.textContent(`${edge('classify', 'billing')} .edge-prob`)).toBe('p 0.60');
    expect(await page.textContent(`${edge('tech', 'classify')} .edge-prob`)).toBe('p 1.00');
    expect(await page.textContent(`${edge('billing', '__end__')} .edge-prob`)).toBe('p 1.00');
    // A hop no run took has no probability.
    expect(await page.getAttribute(edge('tech', '__end__'), 'data-probability')).toBeNull();
    mkdirSync('test-output', { recursive: true });
    await page.screenshot({ path: 'test-output/workbench-transitions.png', fullPage: true });
  }, 60_000);

  it('starts again for another graph, and says when a graph has no stored runs', async () => {
    await page.selectOption('#graph-select', 'echo');
    await page.waitForSelector('#graph [data-node-id="echo"]');
    expect(await page.$$('#transitions .heatmap')).toHaveLength(0);
    await page.click('#analyze');
    await page.waitForSelector('body[data-analyzed="echo"]');
    expect(await page.textContent('#transitions')).toContain('no stored runs of echo yet');
    expect(await page.$$('#graph .edge-prob')).toHaveLength(0);
  }, 60_000);

  it('answers the API for a graph, and 404 for an unknown one', async () => {
    const ok = await fetch(new URL(`/api/graphs/desk/analytics`, server.url));
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { graph: string; analyses: Record<string, { runs: number }> };
    expect(body.graph).toBe('desk');
    expect(body.analyses.desk!.runs).toBe(4);
    expect((await fetch(new URL(`/api/graphs/nope/analytics`, server.url))).status).toBe(404);
    expect((await fetch(new URL(`/api/graphs/desk/analytics?since=soon`, server.url))).status).toBe(400);
    const future = (await (await fetch(new URL(`/api/graphs/desk/analytics?since=${Date.now() + 60_000}`, server.url))).json()) as { analyses: Record<string, { runs: number }> };
    expect(future.analyses.desk!.runs).toBe(0);
  }, 60_000);
});
