import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, type RunningServer } from '../../src/index.js';
import { graphs, scenarios } from '../../machines/index.js';
import type { LaunchedBrowser } from '../support/launchBrowser.js';
import { openWorkbench } from '../support/openWorkbench.js';

let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;
let page: Page;

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-web-coord-')), 'runs.db') });
  ({ server, browser, page } = await openWorkbench({ store, graphs: [...graphs], scenarios: [...scenarios], scenarioRoot: 'machines' }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
});

const coordinator = '#graph [data-node-id="specialist"]';

describe('the coordinator in the workbench drawing', () => {
  it('draws multi_plan → the coordinator → multi_review, with its parallel specialists inside it', async () => {
    await page.waitForSelector(`${coordinator}.coordinator`);
    // Drawn closed; its corner button opens it.
    expect(await page.locator(`${coordinator} .part`).count()).toBe(0);
    await page.click(`${coordinator} .expander`);
    await page.waitForSelector(`${coordinator}.expanded`);
    const parts = await page.$$eval(`${coordinator} .part`, (els) => els.map((e) => e.getAttribute('data-part')));
    expect(parts.sort()).toEqual(['human', 'rag', 'report', 'tool']);
    expect(await page.locator('#graph .edge[data-from="multi_plan"][data-to="specialist"]').count()).toBe(1);
    expect(await page.locator('#graph .edge[data-from="specialist"][data-to="multi_review"]').count()).toBe(1);
    // The specialists sit inside the coordinator's box.
    const outer = (await page.locator(`${coordinator} > rect`).boundingBox())!;
    for (const part of await page.locator(`${coordinator} .part rect`).all()) {
      const box = (await part.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(outer.x);
      expect(box.y).toBeGreaterThanOrEqual(outer.y);
      expect(box.x + box.width).toBeLessThanOrEqual(outer.x + outer.width + 0.5);
      expect(box.y + box.height).toBeLessThanOrEqual(outer.y + outer.height + 0.5);
    }
  }, 30_000);

  it('lights the coordinator, the specialists it ran and the edges in and out of it after a multi run', async () => {
    await page.click('[data-scenario="5-multi"]');
    await page.waitForSelector('body[data-run-status="completed"]', { timeout: 60_000 });
    await page.waitForSelector(`${coordinator}.visited`);
    const visited = await page.$$eval(`${coordinator} .part.visited`, (els) => els.map((e) => e.getAttribute('data-part')));
    expect(visited.sort()).toEqual(['rag', 'report', 'tool']);
    expect(await page.getAttribute('#graph .edge[data-from="multi_plan"][data-to="specialist"]', 'class')).toContain('traversed');
    expect(await page.getAttribute('#graph .edge[data-from="specialist"][data-to="multi_review"]', 'class')).toContain('traversed');
    mkdirSync('test-output', { recursive: true });
    await page.locator(coordinator).screenshot({ path: 'test-output/workbench-coordinator.png' });
  }, 90_000);
});
