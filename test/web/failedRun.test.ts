import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, type RunningServer } from '../../src/index.js';
import { failingChargeGraph, lookupLoopGraph } from '../fixtures/workbenchGraphs.js';
import type { LaunchedBrowser } from '../support/launchBrowser.js';
import { openWorkbench } from '../support/openWorkbench.js';

let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;
let page: Page;

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-web-failed-')), 'runs.db') });
  ({ server, browser, page } = await openWorkbench({ store, graphs: [lookupLoopGraph(1), failingChargeGraph()] }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
});

const node = (id: string) => `#graph [data-node-id="${id}"]`;
// Run in the page (a string, since the tests are type-checked without the DOM library).
const strokeOf = (selector: string) => page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(`${selector} > rect`)})).stroke`) as Promise<string>;

describe('a failed run in the workbench', () => {
  it('shows the error as an error, not in the answer box, and paints the failed node apart from the visited ones', async () => {
    await page.selectOption('#graph-select', 'failing-charge');
    await page.fill('#message', 'Charge order SO20261001');
    await page.click('#start-button');
    await page.waitForSelector('body[data-run-status="failed"]');

    const error = page.locator('#run-error');
    await error.waitFor({ state: 'visible' });
    expect(await error.textContent()).toContain('payment gateway refused the charge (card expired)');
    expect(await error.textContent()).toContain('charge');
    expect(await error.getAttribute('role')).toBe('alert');
    expect(await page.isHidden('#answer')).toBe(true);
    expect(await page.textContent('#answer')).not.toContain('payment gateway');

    await page.waitForSelector(`${node('charge')}.failed`);
    expect(await page.getAttribute(node('check'), 'class')).toContain('visited');
    expect(await page.getAttribute(node('check'), 'class')).not.toContain('failed');
    expect(await page.getAttribute(node('receipt'), 'class')).not.toMatch(/visited|failed/);
    expect(await strokeOf(node('charge'))).not.toBe(await strokeOf(node('check')));
    // The failure hops every node has are one legend entry under the drawing, lit by this run.
    expect(await page.locator('#graph .edge[data-to="failed"]').count()).toBe(0);
    expect(await page.getAttribute('#graph .legend[data-legend="failure"]', 'class')).toContain('traversed');
  }, 30_000);

  it('keeps the answer box for a completed run and shows no error there', async () => {
    await page.selectOption('#graph-select', 'lookup-loop');
    await page.fill('#message', 'Check order SO20261001');
    await page.click('#start-button');
    await page.waitForSelector('body[data-run-status="completed"]');
    expect(await page.textContent('#answer')).toContain('Looked it up 2 times');
    expect(await page.isHidden('#run-error')).toBe(true);
    expect(await page.locator('#graph .node.failed').count()).toBe(0);
    expect(await page.getAttribute('#graph .legend[data-legend="failure"]', 'class')).not.toContain('traversed');
  }, 30_000);
});
