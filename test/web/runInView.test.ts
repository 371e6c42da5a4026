import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, startServer, type RunningServer } from '../../src/index.js';
import { graphs, scenarios } from '../../machines/index.js';
import { launchBrowser, type LaunchedBrowser } from '../support/launchBrowser.js';

/**
 * The page keeps the run in view: arriving events never scroll the window (the event list scrolls
 * inside its own panel, and only when the reader is at its bottom); the lit node, the status and
 * the answer stay on screen; deep links open at the top; a phone-wide page does not overflow.
 */
const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-web-view-')), 'runs.db') });
  server = await startServer({ store, graphs: [...graphs], scenarios: [...scenarios], scenarioRoot: 'machines', port: 0 });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
});

interface Layout {
  scrollY: number;
  scrollWidth: number;
  innerWidth: number;
  innerHeight: number;
  /** [top, bottom, left, right] of each element, or null when it is missing or hidden. */
  boxes: Record<string, [number, number, number, number] | null>;
  list: { scrollTop: number; scrollHeight: number; clientHeight: number };
}

// Read in the page (a string, since the tests are type-checked without the DOM library).
const layout = (page: Page): Promise<Layout> =>
  page.evaluate(`(() => {
    const box = (selector) => {
      const el = document.querySelector(selector);
      if (!el || el.closest('[hidden]')) return null;
      const r = el.getBoundingClientRect();
      return [r.top, r.bottom, r.left, r.right];
    };
    const list = document.getElementById('events');
    return {
      scrollY: window.scrollY,
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      innerHeight: window.innerHeight,
      boxes: { status: box('#run-status'), answer: box('#answer'), header: box('#run-header'), lit: box('#graph .node.lit'), waiting: box('#waiting') },
      list: { scrollTop: list.scrollTop, scrollHeight: list.scrollHeight, clientHeight: list.clientHeight },
    };
  })()`) as Promise<Layout>;

function expectInView(seen: Layout, names: string[]): void {
  for (const name of names) {
    const box = seen.boxes[name];
    expect(box, `${name} is shown`).not.toBeNull();
    const [top, bottom, left, right] = box!;
    expect(top, `${name} top`).toBeGreaterThanOrEqual(0);
    expect(bottom, `${name} bottom`).toBeLessThanOrEqual(seen.innerHeight);
    expect(left, `${name} left`).toBeGreaterThanOrEqual(0);
    expect(right, `${name} right`).toBeLessThanOrEqual(seen.innerWidth + 0.5);
  }
}

async function openPage(viewport: { width: number; height: number }, hash = ''): Promise<Page> {
  const page = await browser.context.newPage();
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.setViewportSize(viewport);
  await page.goto(`${server.url}${hash}`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

describe.each(VIEWPORTS)('the run stays in view at $width×$height', (viewport) => {
  it('keeps the window still while events arrive; the lit node, status and answer stay on screen', async () => {
    const page = await openPage(viewport);
    try {
      await page.click('[data-scenario="4-order"]');
      await page.waitForSelector('body[data-run-status="completed"]');
      await page.waitForSelector('#graph .node.lit');
      const done = await layout(page);
      expect(done.scrollY).toBe(0);
      expectInView(done, ['status', 'answer', 'lit']);
      expect(done.scrollWidth).toBeLessThanOrEqual(viewport.width);
      // The reader was at the bottom of the event list, so it followed the events inside its panel.
      expect(done.list.scrollHeight).toBeGreaterThan(done.list.clientHeight);
      expect(done.list.scrollTop + done.list.clientHeight).toBeGreaterThanOrEqual(done.list.scrollHeight - 8);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('leaves the event list where the reader scrolled it when more events arrive', async () => {
    const page = await openPage(viewport);
    try {
      await page.click('[data-scenario="6-human"]');
      await page.waitForSelector('body[data-run-status="waiting"]');
      await page.waitForSelector('#graph [data-node-id="human_handoff"].lit');
      const waiting = await layout(page);
      expect(waiting.scrollY).toBe(0);
      expectInView(waiting, ['status', 'waiting', 'lit']);
      expect(waiting.list.scrollHeight).toBeGreaterThan(waiting.list.clientHeight);
      await page.evaluate(`document.getElementById('events').scrollTop = 0`);

      await page.fill('#reply', 'Approved by the team lead');
      await page.click('#reply-form button[type="submit"]');
      await page.waitForSelector('body[data-run-status="completed"]');
      await page.waitForSelector('#graph .node.lit');
      const done = await layout(page);
      expect(done.list.scrollTop).toBe(0);
      expect(done.list.scrollHeight).toBeGreaterThan(waiting.list.scrollHeight);
      expect(done.scrollY).toBe(0);
      expectInView(done, ['status', 'answer', 'lit']);
      expect(done.scrollWidth).toBeLessThanOrEqual(viewport.width);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('opens a deep link at the top with the run header in view', async () => {
    const runs = (await (await fetch(new URL('/api/runs', server.url))).json()) as Array<{ runId: string; status: string }>;
    const finished = runs.find((r) => r.status === 'completed');
    expect(finished).toBeDefined();
    const page = await openPage(viewport, `#run=${finished!.runId}`);
    try {
      await page.waitForSelector('body[data-run-status="completed"]');
      await expect.poll(() => page.textContent('#position').then((t) => /^(\d+) \/ \1$/.test(t ?? '') && t !== '0 / 0')).toBe(true);
      const seen = await layout(page);
      expect(seen.scrollY).toBe(0);
      expectInView(seen, ['header', 'status', 'answer']);
      expect(seen.scrollWidth).toBeLessThanOrEqual(viewport.width);
    } finally {
      await page.close();
    }
  }, 60_000);
});
