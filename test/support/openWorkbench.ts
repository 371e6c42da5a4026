import type { Page } from 'playwright-core';
import { startServer, type RunningServer, type StartServerOptions } from '../../src/index.js';
import { launchBrowser, type LaunchedBrowser } from './launchBrowser.js';

/** A workbench server on a free loopback port and a Chromium page showing it, ready (the caller closes both). */
export interface OpenWorkbench {
  server: RunningServer;
  browser: LaunchedBrowser;
  page: Page;
}

/**
 * Starts the workbench with `options` (port 0) and opens it at 1440×900 in Chromium; an error thrown
 * in the page fails the test.
 */
export async function openWorkbench(options: Omit<StartServerOptions, 'port'>): Promise<OpenWorkbench> {
  const server = await startServer({ ...options, port: 0 });
  const browser = await launchBrowser({ viewport: { width: 1440, height: 900 } });
  const page = await browser.context.newPage();
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  return { server, browser, page };
}
