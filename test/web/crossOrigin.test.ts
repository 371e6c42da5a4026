import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, startServer, type RunningServer } from '../../src/index.js';
import { approvalGraph } from '../fixtures/workbenchGraphs.js';
import { launchBrowser, type LaunchedBrowser } from '../support/launchBrowser.js';

/**
 * A page on another origin (a second loopback server) attacks the workbench the ways a browser
 * allows: auto-submitted forms (form-urlencoded, text/plain shaped as JSON, multipart), `no-cors`
 * fetches and a JSON fetch, against start, scenario start, resume and cancel. Nothing may change.
 */
let store: SqliteRunStore;
let workbench: RunningServer;
let attacker: Server;
let attackerPort = 0;
let browser: LaunchedBrowser;
let waitingRunId = '';

/** The attack page's script: every attempt, then `document.title = 'done'`; results in `window.results`. */
function attackPage(target: string, runId: string): string {
  const targets = [
    { name: 'start', url: `${target}api/runs`, body: { graph: 'approval', message: 'csrf' } },
    { name: 'scenario', url: `${target}api/scenarios/approve/runs`, body: {} },
    { name: 'resume', url: `${target}api/runs/${runId}/resume`, body: { reply: 'forged reply' } },
    { name: 'cancel', url: `${target}api/runs/${runId}/cancel`, body: {} },
  ];
  return `<!doctype html><title>attacking</title><body><script>
const targets = ${JSON.stringify(targets)};
window.results = [];
function submitForm(url, enctype, body) {
  return new Promise((resolve) => {
    const frame = document.createElement('iframe');
    frame.name = 'f' + Math.random().toString(36).slice(2);
    frame.onload = () => resolve();
    document.body.append(frame);
    const form = document.createElement('form');
    Object.assign(form, { method: 'POST', action: url, enctype, target: frame.name });
    const fields = enctype === 'text/plain'
      // name=value sent raw: '{"message":"csrf' + '=' + '"}' is the JSON body {"message":"csrf="}.
      ? [[Object.keys(body).length ? JSON.stringify(body).slice(0, -2) : '{"a":"', '"}']]
      : Object.entries(body).length ? Object.entries(body) : [['a', 'b']];
    for (const [name, value] of fields) form.append(Object.assign(document.createElement('input'), { type: 'hidden', name, value }));
    document.body.append(form);
    form.submit();
  });
}
(async () => {
  for (const { name, url, body } of targets) {
    for (const enctype of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data']) {
      await submitForm(url, enctype, body);
      results.push([name, 'form', enctype]);
    }
    for (const headers of [{}, { 'content-type': 'text/plain' }, { 'content-type': 'application/json' }]) {
      try {
        const res = await fetch(url, { method: 'POST', mode: 'no-cors', headers, body: JSON.stringify(body) });
        results.push([name, 'no-cors', res.type]);
      } catch (error) {
        results.push([name, 'no-cors', 'error ' + error]);
      }
    }
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      results.push([name, 'json', 'answered ' + res.status]);
    } catch {
      results.push([name, 'json', 'blocked']);
    }
  }
  document.title = 'done';
})();
</script></body>`;
}

const api = async (path: string) => (await fetch(new URL(path, workbench.url))).json() as Promise<any>;

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-xorigin-')), 'runs.db') });
  workbench = await startServer({ store, graphs: [approvalGraph()], scenarios: [{ id: 'approve', title: 'Approve', message: 'scenario', graph: 'approval' }], port: 0 });
  const started = await fetch(new URL('/api/runs?wait=true', workbench.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'keep waiting' }) });
  waitingRunId = ((await started.json()) as { runId: string }).runId;
  attacker = createHttpServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(attackPage(workbench.url, waitingRunId));
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerPort = (attacker.address() as AddressInfo).port;
  // rebind.test stands for a domain whose DNS an attacker pointed at 127.0.0.1.
  browser = await launchBrowser({ args: ['--host-resolver-rules=MAP rebind.test 127.0.0.1'] });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  await workbench?.stop();
  await store?.close();
});

describe('a page on another origin in Chromium', () => {
  for (const host of ['127.0.0.1', 'localhost']) {
    it(`cannot start, resume or cancel runs from http://${host}:<other port> (forms, no-cors and JSON fetches)`, async () => {
      const before = await api('/api/runs?limit=500');
      const eventsBefore = (await api(`/api/runs/${waitingRunId}/events`)).length;
      const page = await browser.context.newPage();
      const posts: Array<{ url: string; status: number }> = [];
      page.on('response', (res) => {
        if (res.request().method() === 'POST' && res.url().startsWith(workbench.url)) posts.push({ url: res.url(), status: res.status() });
      });
      await page.goto(`http://${host}:${attackerPort}/`);
      await page.waitForFunction("document.title === 'done'", undefined, { timeout: 60_000 });
      const results = (await page.evaluate('window.results')) as Array<[string, string, string]>;
      await page.close();

      // Every attempt ran: 4 targets × (3 forms + 3 no-cors fetches + 1 JSON fetch).
      expect(results).toHaveLength(28);
      // The forms and no-cors fetches reached the server and were refused; the JSON fetch never left the browser.
      expect(posts).toHaveLength(24);
      for (const post of posts) expect(post.status, post.url).toBe(403);
      expect(results.filter((r) => r[1] === 'json').map((r) => r[2])).toEqual(['blocked', 'blocked', 'blocked', 'blocked']);

      // Nothing changed: no run created, the waiting run still waits with the same events.
      const after = await api('/api/runs?limit=500');
      expect(after).toHaveLength(before.length);
      expect(await api(`/api/runs/${waitingRunId}`)).toMatchObject({ status: 'waiting' });
      expect(await api(`/api/runs/${waitingRunId}/events`)).toHaveLength(eventsBefore);
    }, 120_000);
  }

  it('cannot read the API through a name that resolves to 127.0.0.1 (DNS rebinding): 421', async () => {
    const page = await browser.context.newPage();
    for (const path of ['/', '/api/runs', `/api/runs/${waitingRunId}`]) {
      const res = await page.goto(`http://rebind.test:${workbench.port}${path}`);
      expect(res?.status(), path).toBe(421);
      expect(await page.textContent('body')).toContain('misdirected_request');
      // The stored run's input is what a rebinding page would be after.
      expect(await page.content()).not.toContain('keep waiting');
    }
    await page.close();
  }, 60_000);

  it('the workbench page itself still starts and cancels a run', async () => {
    const before = (await api('/api/runs?limit=500')).length;
    const page = await browser.context.newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.goto(workbench.url);
    await page.waitForSelector('body[data-ready="true"]');
    await page.fill('#message', 'started from the page');
    await page.click('#start-button');
    await page.waitForSelector('body[data-run-status="waiting"]');
    await page.click('#cancel-run');
    await page.waitForSelector('body[data-run-status="cancelled"]');
    const runId = /#run=(.+)$/.exec(page.url())?.[1] ?? '';
    await page.close();
    expect((await api('/api/runs?limit=500')).length).toBe(before + 1);
    expect(await api(`/api/runs/${runId}`)).toMatchObject({ status: 'cancelled', input: 'started from the page' });
  }, 60_000);
});
