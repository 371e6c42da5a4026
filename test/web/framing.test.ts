import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, startServer, type RunningServer } from '../../src/index.js';
import { quickGraph } from '../fixtures/workbenchGraphs.js';
import { launchBrowser, type LaunchedBrowser } from '../support/launchBrowser.js';

/**
 * Clickjacking: a page on another origin frames the workbench, invisible, over a button of its own,
 * so the user's click lands on a workbench button (a scenario starts a run; Cancel, Reply and Fork
 * act on the open run). The page's own requests are same-origin, so the request guard lets them
 * through; only the browser can refuse to frame it. The browser allows third-party storage, as many
 * users' browsers do (the page needs sessionStorage, which a browser blocking third-party cookies
 * denies to a frame, and which would stop the page by accident).
 */
const dir = mkdtempSync(join(tmpdir(), 'sb-framing-'));
let store: SqliteRunStore;
let workbench: RunningServer;
let attacker: Server;
let browser: LaunchedBrowser;

/** The bait: a big button, and the workbench framed transparently on top of it. */
const baitPage = (target: string) => `<!doctype html><title>prize</title><body style="margin:0">
<button id="bait" style="position:absolute;left:0;top:0;width:1400px;height:1000px">Claim your prize</button>
<iframe src="${target}" style="position:absolute;left:0;top:0;width:1400px;height:1000px;opacity:0;border:0" onload="document.title = 'loaded'"></iframe>
</body>`;

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(dir, 'runs.db') });
  workbench = await startServer({ store, graphs: [quickGraph()], port: 0, scenarios: [{ id: 'go', title: 'Go', message: 'a framed click' }] });
  attacker = createHttpServer((_req, res) => res.setHeader('content-type', 'text/html; charset=utf-8').end(baitPage(workbench.url)));
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  browser = await launchBrowser({ viewport: { width: 1400, height: 1000 }, preferences: { profile: { cookie_controls_mode: 0 } } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await workbench?.stop();
  await store?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('the workbench page in a frame of another origin', () => {
  it('is refused by the browser, so a click on the bait reaches no workbench button', async () => {
    const page = await browser.context.newPage();
    // localhost, not 127.0.0.1: another origin (and another site) than the workbench.
    await page.goto(`http://localhost:${(attacker.address() as AddressInfo).port}/`);
    await page.waitForFunction("document.title === 'loaded'");
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    const framed = await frame!.evaluate("document.getElementById('start-form') !== null").catch(() => false);
    expect(framed).toBe(false);
    const scenario = page.locator('#bait');
    await scenario.click({ position: { x: 70, y: 130 }, force: true });
    expect(await (await fetch(new URL('/api/runs', workbench.url))).json()).toEqual([]);
    await page.close();
  }, 60_000);

  it('answers the page and its files with X-Frame-Options DENY and frame-ancestors none', async () => {
    for (const path of ['/', '/index.html', '/app/main.js', '/style.css', '/vendor/dagre.js']) {
      const res = await fetch(new URL(path, workbench.url));
      expect(res.status).toBe(200);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    }
  });
});
