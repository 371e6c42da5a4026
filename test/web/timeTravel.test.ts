import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, type RunningServer } from '../../src/index.js';
import { graphs } from '../fixtures/timeTravelGraphs.js';
import type { LaunchedBrowser } from '../support/launchBrowser.js';
import { openWorkbench } from '../support/openWorkbench.js';

let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;
let page: Page;

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-web-travel-')), 'runs.db') });
  ({ server, browser, page } = await openWorkbench({ store, graphs }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
});

const stateShown = async () => JSON.parse((await page.textContent('#step-state')) ?? 'null') as Record<string, unknown>;

describe('time travel in the workbench', () => {
  it('shows the state at each step from the list and the slider, and forks from a step with an edited state', async () => {
    await page.selectOption('#graph-select', 'tally');
    await page.fill('#message', 'x');
    await page.click('#start-button');
    await page.waitForSelector('body[data-run-status="completed"]');
    const parentId = (await page.textContent('#run-id'))!;
    await page.waitForSelector('#step-list li[data-step="3"]');
    expect(await page.locator('#step-list li').allTextContents()).toEqual(['0 · start', '1 · count', '2 · double', '3 · small']);
    await page.waitForSelector('body[data-travel-step="3"]');
    expect(await stateShown()).toMatchObject({ n: 2, label: 'small' });

    await page.click('#step-list li[data-step="1"] button');
    await page.waitForSelector('body[data-travel-step="1"]');
    expect(await page.textContent('#step-title')).toBe('step 1 of 3: after count → next double');
    expect(await stateShown()).toMatchObject({ n: 1 });
    expect(await stateShown()).not.toHaveProperty('label');

    await page.locator('#step-slider').fill('2');
    await page.waitForSelector('body[data-travel-step="2"]');
    expect(await stateShown()).toMatchObject({ n: 2 });

    // A state of the wrong type is refused, naming the key; nothing is started.
    await page.click('#fork-here');
    const edited = (await stateShown()) as { n: number };
    await page.fill('#fork-state', JSON.stringify({ ...edited, n: 'many' }));
    await page.click('#fork-submit');
    await page.locator('#fork-error').waitFor({ state: 'visible' });
    expect(await page.textContent('#fork-error')).toContain('"n"');
    expect(await page.textContent('#run-id')).toBe(parentId);

    await page.fill('#fork-state', JSON.stringify({ ...edited, n: 50 }, null, 2));
    await page.click('#fork-submit');
    await page.waitForFunction(`document.querySelector('#run-id')?.textContent !== ${JSON.stringify(parentId)}`);
    await page.waitForSelector('body[data-run-status="completed"]');
    expect(await page.textContent('#answer')).toBe('big 50 after counted x');
    await page.waitForSelector('#run-parent a');
    expect(await page.textContent('#run-parent')).toBe(`forked from ${parentId} at step 2`);
    await page.waitForSelector('#step-list li[data-step="3"]');
    expect(await page.locator('#step-list li').allTextContents()).toEqual(['0 · start', '1 · count', '2 · double', '3 · big']);

    // The parent link opens the parent, which is unchanged.
    await page.click('#run-parent a');
    await page.waitForFunction(`document.querySelector('#run-id')?.textContent === ${JSON.stringify(parentId)}`);
    await page.waitForSelector('body[data-run-status="completed"]');
    expect(await page.textContent('#answer')).toBe('small 2 after counted x');
  });

  it('starts a run with breakpoints from the form, pauses there, goes on with Continue, and refuses a breakpoint naming no node', async () => {
    await page.selectOption('#graph-select', 'tally');
    await page.click('.breakpoints summary');
    await page.fill('#message', 'y');
    await page.fill('#break-before', 'dubble');
    await page.click('#start-button');
    await page.locator('#start-error').waitFor({ state: 'visible' });
    expect(await page.textContent('#start-error')).toContain('has no such node');

    await page.fill('#break-before', 'double');
    await page.fill('#break-after', '');
    await page.click('#start-button');
    await page.waitForSelector('body[data-run-status="waiting"]');
    await page.locator('#continue-run').waitFor({ state: 'visible' });
    expect(await page.isHidden('#reply')).toBe(true);
    expect(await page.textContent('#waiting')).toContain('breakpoint before double');
    await page.click('#continue-run');
    await page.waitForSelector('body[data-run-status="completed"]');
    expect(await page.textContent('#answer')).toBe('small 2 after counted y');
    expect(await page.isHidden('#continue-run')).toBe(true);
  });
});
