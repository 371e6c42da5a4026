import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, startServer, type RunningServer } from '../../src/index.js';
import { graphs, scenarios } from '../../machines/index.js';
import { fixtureScenarios, lookupLoopGraph } from '../fixtures/workbenchGraphs.js';
import { launchBrowser, type LaunchedBrowser } from '../support/launchBrowser.js';

/**
 * The browser scenarios of the issue, on the customer-service graph: scenario 4 lights
 * `tool_execute` twice and answers 599; scenario 6 waits at `human_handoff` and is finished by a
 * reply typed in the page; the replay shows the delta of `classify`.
 */
const CASES = {
  answer: { scenario: '4-order', node: 'tool_execute', visits: 2, answer: '599' },
  waits: {
    scenario: '6-human',
    node: 'human_handoff',
    reason: 'the customer asks for a person or disputes a decision',
    reply: 'Refund of the difference approved by the team lead',
    answer: 'Refund of the difference approved by the team lead',
  },
  replay: { node: 'classify', delta: 'classification' },
};
const extraGraphs = [lookupLoopGraph(400)];
const extraScenarios = fixtureScenarios;

let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;
let page: Page;
let finishedRunId = '';

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-web-')), 'runs.db') });
  server = await startServer({ store, graphs: [...graphs, ...extraGraphs], scenarios: [...scenarios, ...extraScenarios], scenarioRoot: 'machines', port: 0 });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
});

const node = (id: string) => `#graph [data-node-id="${id}"]`;

describe('workbench page in Chromium', () => {
  it('runs a scenario from its button: the active node lights up, loops count, the answer appears', async () => {
    await page.click(`[data-scenario="${CASES.answer.scenario}"]`);
    // The order loop takes milliseconds offline, so the live highlight is checked by what it leaves:
    // tool_execute lit up twice (its visit count), and the edges it took stay marked.
    await page.waitForSelector(`${node(CASES.answer.node)}[data-visits="${CASES.answer.visits}"]`);
    await page.waitForSelector('body[data-run-status="completed"]');
    expect(await page.textContent('#answer')).toContain(CASES.answer.answer);
    expect(await page.locator('#graph .edge.traversed').count()).toBeGreaterThan(0);
    await page.waitForSelector('#history .run-item.current[data-status="completed"]');
    mkdirSync('test-output', { recursive: true });
    await page.screenshot({ path: 'test-output/workbench-answer.png', fullPage: true });
  }, 30_000);

  it('runs a scenario that waits, takes the reply in the page and finishes', async () => {
    await page.click(`[data-scenario="${CASES.waits.scenario}"]`);
    await page.waitForSelector('body[data-run-status="waiting"]');
    await page.waitForSelector(`${node(CASES.waits.node)}.waiting`);
    expect(await page.textContent('#waiting')).toContain(CASES.waits.reason);
    await page.fill('#reply', CASES.waits.reply);
    await page.click('#reply-form button[type="submit"]');
    await page.waitForSelector('body[data-run-status="completed"]');
    expect(await page.textContent('#answer')).toContain(CASES.waits.answer);
    expect(await page.isHidden('#reply-form')).toBe(true);
    finishedRunId = /#run=(.+)$/.exec(page.url())?.[1] ?? '';
    expect(finishedRunId).not.toBe('');
  }, 30_000);

  it('starts a run from the free-text box with an image upload; the image is shown nowhere as bytes', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
    await page.selectOption('#graph-select', 'refund-approval');
    await page.fill('#message', 'Refund SO20261005, photo attached');
    await page.setInputFiles('#image', { name: 'case.png', mimeType: 'image/png', buffer: png });
    await page.click('#start-button');
    await page.waitForSelector('body[data-run-status="waiting"]');
    const runId = /#run=(.+)$/.exec(page.url())?.[1] ?? '';
    const detail = (await (await fetch(new URL(`/api/runs/${runId}`, server.url))).json()) as { input: string; request: { metadata: { image: Record<string, unknown> } } };
    expect(detail.input).toBe('Refund SO20261005, photo attached');
    expect(detail.request.metadata.image).toMatchObject({ mediaType: 'image/png', dataUrl: '[image]', name: 'case.png', bytes: png.length });
    await page.click(node('draft'));
    expect(await page.textContent('#inspector')).toContain('[image]');
    expect(await page.content()).not.toContain(png.toString('base64').slice(0, 24));
  }, 30_000);

  it('replays a finished run with the timeline, without running anything, and inspects a node delta', async () => {
    const before = (await (await fetch(new URL('/api/runs', server.url))).json()) as unknown[];
    const posts: string[] = [];
    page.on('request', (request) => request.method() !== 'GET' && posts.push(request.url()));
    await page.goto(`${server.url}#run=${finishedRunId}`);
    await page.reload();
    await page.waitForSelector('body[data-run-status="completed"]');
    const events = (await (await fetch(new URL(`/api/runs/${finishedRunId}/events`, server.url))).json()) as Array<{ type: string; nodeId?: string }>;
    const total = events.length;
    await expect.poll(() => page.textContent('#position')).toBe(`${total} / ${total}`);

    await page.click('#replay');
    await page.waitForSelector('body[data-timeline="playing"]');
    await page.waitForSelector('body[data-timeline="paused"]', { timeout: 15_000 });
    expect(await page.textContent('#position')).toBe(`${total} / ${total}`);

    // Scrub to just before and just after the node completed.
    const completedAt = events.findIndex((e) => e.type === 'node.completed' && e.nodeId === CASES.replay.node) + 1;
    const scrub = (to: number) => page.locator('#scrubber').fill(String(to));
    await page.click(node(CASES.replay.node));
    await scrub(completedAt - 1);
    expect(await page.locator('#inspector .delta').count()).toBe(0);
    await scrub(completedAt);
    await page.waitForSelector('#inspector .delta');
    expect(await page.textContent('#inspector .delta')).toContain(CASES.replay.delta);
    expect(await page.textContent('#inspector')).toContain('Round 1');
    expect(await page.getAttribute(node(CASES.replay.node), 'class')).toContain('selected');

    await page.screenshot({ path: 'test-output/workbench-replay.png', fullPage: true });
    expect(existsSync('test-output/workbench-replay.png')).toBe(true);

    expect(posts).toEqual([]);
    const after = (await (await fetch(new URL('/api/runs', server.url))).json()) as unknown[];
    expect(after).toHaveLength(before.length);
  }, 30_000);

  it('works behind a token: the page takes it from ?token=, drops it from the address and streams with it', async () => {
    const secured = await startServer({ store, graphs: [...graphs], scenarios: [...scenarios], port: 0, token: 'tok-browser-0123456789' });
    try {
      await page.goto(`${secured.url}?token=tok-browser-0123456789`);
      await page.waitForSelector('body[data-ready="true"]');
      expect(page.url()).not.toContain('tok-browser');
      await page.click(`[data-scenario="${CASES.waits.scenario}"]`);
      await page.waitForSelector('body[data-run-status="waiting"]');
      expect(await page.getAttribute('#connection', 'data-state')).toBe('open');
    } finally {
      await secured.stop();
    }
  }, 30_000);
});
