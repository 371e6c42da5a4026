import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, Workflow, WorkflowAbort, step, type RunningServer } from '../../src/index.js';
import { graphs } from '../fixtures/workflowGraphs.js';
import type { LaunchedBrowser } from '../support/launchBrowser.js';
import { openWorkbench } from '../support/openWorkbench.js';

let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;
let page: Page;

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-web-wf-')), 'runs.db') });
  // The typed workflows are registered as they are, beside a StateGraph.
  // `quits` ends early (WorkflowAbort) by the route every step has, which the drawing folds into a legend entry.
  const quits = Workflow.define<string>('quits')
    .step(step('look', (_c, s: string) => s))
    .then(step('give-up', (_c, s: string): string => {
      throw new WorkflowAbort(`gave up on ${s}`);
    }))
    .then(step('never', (_c, s: string) => s));
  ({ server, browser, page } = await openWorkbench({ store, graphs: [...graphs, quits] }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
});

const node = (id: string) => `#graph [data-node-id="${id}"]`;
const edge = (from: string, to: string) => `#graph .edge[data-from="${from}"][data-to="${to}"]`;

describe('a typed workflow in the workbench', () => {
  it('is offered beside the graph and drawn from its machine: steps, the fork with its branches inside, the gate and the person’s wait', async () => {
    expect(await page.$$eval('#graph-select option', (els) => els.map((e) => e.getAttribute('value')))).toEqual(['review', 'tally', 'echo', 'quits']);
    await page.waitForSelector(`${node('fork')}.coordinator`);
    const drawn = await page.$$eval('#graph .node', (els) => els.map((e) => e.getAttribute('data-node-id')));
    expect(drawn.sort()).toEqual(['__end__', 'approval', 'approval:person', 'draft', 'finish', 'fork', 'publish', 'revise'].sort());
    // The fork is drawn closed, its branches shown when it is opened.
    expect(await page.textContent(`${node('fork')} .coordinator-summary`)).toBe('2 branches');
    await page.click(`${node('fork')} .expander`);
    await page.waitForSelector(`${node('fork')}.expanded`);
    expect(await page.$$eval(`${node('fork')} .part`, (els) => els.map((e) => e.getAttribute('data-part')))).toEqual(['spell', 'facts']);
    expect(await page.getAttribute(node('approval:person'), 'class')).toContain('human');
    for (const [from, to] of [['draft', 'fork'], ['fork', 'approval'], ['approval', 'approval:person'], ['approval:person', 'publish'], ['revise', 'approval'], ['publish', 'finish']]) {
      expect(await page.locator(edge(from!, to!)).count(), `${from} → ${to}`).toBe(1);
    }
    expect(await page.textContent(`${edge('approval:person', 'publish')} .edge-label`)).toBe('PASS');
    // The early-end route every step has is one legend entry, not an edge from each step to END.
    const toEnd = await page.$$eval('#graph .edge[data-to="__end__"]', (els) => els.map((e) => e.getAttribute('data-from')));
    expect(toEnd).toContain('finish');
    for (const from of ['draft', 'fork', 'publish', 'revise']) expect(toEnd, from).not.toContain(from);
    expect(await page.locator('#graph .legend[data-legend="workflow:end"]').count()).toBe(1);
    expect((await page.getAttribute('#graph .legend[data-legend="workflow:end"]', 'data-steps'))!.split(' ')).toEqual(expect.arrayContaining(['draft', 'fork', 'publish', 'revise']));
    expect(await page.textContent('#graph .legend .legend-text')).toContain('any step → END on workflow:end');
    // The branches sit inside the fork's box.
    const outer = (await page.locator(`${node('fork')} > rect`).boundingBox())!;
    for (const part of await page.locator(`${node('fork')} .part rect`).all()) {
      const box = (await part.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(outer.x);
      expect(box.x + box.width).toBeLessThanOrEqual(outer.x + outer.width + 0.5);
    }
  }, 60_000);

  it('runs it from the page: lights the branches, waits at the gate, revises on FAIL and completes on PASS', async () => {
    await page.selectOption('#graph-select', 'review');
    await page.fill('#message', 'the plan');
    await page.click('#start-button');
    await page.waitForSelector('body[data-run-status="waiting"]', { timeout: 60_000 });
    await page.waitForSelector(`${node('approval:person')}.waiting`);
    expect(await page.$$eval(`${node('fork')} .part.visited`, (els) => els.map((e) => e.getAttribute('data-part')).sort())).toEqual(['facts', 'spell']);
    expect(await page.getAttribute(edge('draft', 'fork'), 'class')).toContain('traversed');
    expect(await page.$$eval('#lanes .lane', (els) => els.map((e) => e.getAttribute('data-path')))).toEqual(['root', 'root/facts[2]', 'root/spell[1]']);

    await page.fill('#reply', 'FAIL: name the owner');
    await page.click('#reply-form button[type="submit"]');
    await page.waitForSelector(`${node('revise')}.visited`, { timeout: 60_000 });
    await page.waitForSelector('body[data-run-status="waiting"]', { timeout: 60_000 });
    expect(await page.getAttribute(node('approval:person'), 'data-visits')).toBe('2');

    await page.fill('#reply', 'PASS');
    await page.click('#reply-form button[type="submit"]');
    await page.waitForSelector('body[data-run-status="completed"]', { timeout: 60_000 });
    expect(await page.textContent('#answer')).toContain('published draft of the plan (revised: name the owner)');
    expect(await page.getAttribute(edge('approval:person', 'publish'), 'class')).toContain('traversed');
    expect(await page.getAttribute(node('publish'), 'class')).toContain('visited');
    mkdirSync('test-output', { recursive: true });
    await page.locator('#graph').screenshot({ path: 'test-output/workbench-workflow.png' });

    const [record] = await store.listRuns({ graphName: 'review' });
    expect(record).toMatchObject({ status: 'completed', outputText: 'published draft of the plan (revised: name the owner)' });
  }, 120_000);

  it('lights the legend entry when a run ends early by that route', async () => {
    await page.selectOption('#graph-select', 'quits');
    await page.waitForSelector(`${node('give-up')}`);
    expect(await page.getAttribute('#graph .legend', 'class')).not.toContain('traversed');
    await page.fill('#message', 'the task');
    await page.click('#start-button');
    await page.waitForSelector('body[data-run-status="aborted"]', { timeout: 60_000 });
    await page.waitForSelector('#graph .legend.traversed');
    expect(await page.getAttribute(node('never'), 'class')).not.toContain('visited');
  }, 120_000);

  it('shows a workflow that is refused a reply it cannot take, and keeps it waiting', async () => {
    await page.selectOption('#graph-select', 'review');
    await page.fill('#message', 'second plan');
    await page.click('#start-button');
    await page.waitForSelector('body[data-run-status="waiting"]', { timeout: 60_000 });
    await page.fill('#reply', 'looks fine');
    await page.click('#reply-form button[type="submit"]');
    await page.waitForSelector('#reply-error:not([hidden])');
    expect(await page.textContent('#reply-error')).toContain('PASS, FAIL or TIMEOUT');
    expect(await page.getAttribute('body', 'data-run-status')).toBe('waiting');
  }, 120_000);
});
