import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { END, SqliteRunStore, StateGraph, type RunningServer } from '../../src/index.js';
import type { LaunchedBrowser } from '../support/launchBrowser.js';
import { openWorkbench } from '../support/openWorkbench.js';

// Node ids and a graph name an attacker or a careless author could write: markup, selector and
// Mermaid syntax, and the names of Object.prototype's properties.
const IMG = '<img src=x onerror="window.__xss=1">';
const QUOTE = 'q"] , [data-x="';
const CTOR = 'constructor';
const TO_STRING = 'toString';
const GRAPH = '<script>window.__xss=2</script>';

const graph = new StateGraph({ name: GRAPH })
  .addNode(IMG, () => 'a')
  .addNode(QUOTE, () => 'b')
  .addNode(CTOR, () => 'c')
  .addNode(TO_STRING, () => 'd')
  .start(IMG)
  .addEdge(IMG, QUOTE)
  .addEdge(QUOTE, CTOR)
  .addEdge(CTOR, TO_STRING)
  .addEdge(TO_STRING, END);

let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;
let page: Page;
const dir = mkdtempSync(join(tmpdir(), 'sb-web-hostile-'));

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(dir, 'runs.db') });
  await graph.run('go', { store });
  ({ server, browser, page } = await openWorkbench({ store, graphs: [graph] }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the transitions panel with hostile names', () => {
  it('draws the graph: its nodes by their ids (dagre, which lays it out, fails on ids such as constructor)', async () => {
    const drawn = await page.$$eval('#graph [data-node-id]', (nodes) => nodes.map((n) => n.getAttribute('data-node-id')));
    expect(drawn).toEqual(expect.arrayContaining([IMG, QUOTE, CTOR, TO_STRING]));
  }, 60_000);

  it('shows node ids and the graph name as text, runs nothing, and labels every edge', async () => {
    await page.click('#analyze');
    await page.waitForSelector(`body[data-analyzed="${GRAPH}"]`);
    const heads = await page.$$eval('#transitions .heatmap th', (ths) => ths.map((th) => th.textContent));
    expect(heads).toEqual(expect.arrayContaining([IMG, QUOTE, CTOR, TO_STRING, 'end: completed']));
    const cells = await page.$$eval('#transitions .heatmap td', (tds) => tds.map((td) => [td.getAttribute('data-from'), td.getAttribute('data-to'), td.textContent]));
    expect(cells).toEqual(expect.arrayContaining([[IMG, QUOTE, '1.00'], [QUOTE, CTOR, '1.00'], [CTOR, TO_STRING, '1.00'], [TO_STRING, '__end__:completed', '1.00']]));
    expect(await page.textContent('#transitions .transition-figures')).toContain('1 runs · 5 transitions · ends: completed 100.0%');
    expect(await page.$$('#transitions img, #transitions script, #graph img')).toHaveLength(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.$$eval('#graph .edge-prob', (labels) => labels.map((l) => l.textContent))).toEqual(['p 1.00', 'p 1.00', 'p 1.00', 'p 1.00']);
  }, 60_000);
});
