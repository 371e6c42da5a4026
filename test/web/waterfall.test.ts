import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel, RunSpansJson, SqliteRunStore, type RunningServer } from '../../src/index.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../../src/testing/index.js';
import { customerService } from '../../machines/customerService.js';
import { salesReportService } from '../../specialists/report/salesReportService.js';
import { scriptedTurn } from '../machines/scriptedCustomerServiceModel.js';
import type { LaunchedBrowser } from '../support/launchBrowser.js';
import { openWorkbench } from '../support/openWorkbench.js';

let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;
let page: Page;
let openai: FakeOpenAIServer;

beforeAll(async () => {
  openai = await startFakeOpenAIServer();
  openai.enqueue(...Array.from({ length: 200 }, () => scriptedTurn));
  const model = new OpenAIChatModel({ model: 'gpt-test', baseURL: openai.baseURL, apiKey: 'sk-test-fake', maxRetries: 0 });
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-web-spans-')), 'runs.db') });
  ({ server, browser, page } = await openWorkbench({ store, graphs: [customerService({ model })] }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
  await openai?.close();
  await salesReportService().close();
});

type Row = { kind: string; name: string; status: string; startMs: number; durationMs: number; tokens: number };
const rowsInPage = () =>
  page.evaluate(`[...document.querySelectorAll('#waterfall .span-row')].map((r) => ({
    kind: r.dataset.kind, name: r.dataset.name, status: r.dataset.status,
    startMs: Number(r.dataset.startMs), durationMs: Number(r.dataset.durationMs), tokens: Number(r.dataset.tokens),
  }))`) as Promise<Row[]>;

async function runFromForm(message: string): Promise<RunSpansJson> {
  await page.fill('#message', message);
  const before = await page.textContent('#run-id');
  await page.click('#start-button');
  // The page shows the previous run (completed too) until the start request is answered: wait for the new one.
  await page.waitForFunction(`document.querySelector('#run-id').textContent !== ${JSON.stringify(before)} && document.body.dataset.runStatus === 'completed'`);
  const runId = (await page.textContent('#run-id'))!;
  const spans = RunSpansJson.parse(await (await fetch(new URL(`/api/runs/${runId}/spans`, server.url))).json());
  // The panel settles on the stored run's spans once its last events are read.
  await page.waitForSelector(`#waterfall[data-run-id="${runId}"] .waterfall-totals[data-tokens-total="${spans.tokens.total}"]`);
  await page.waitForFunction(`document.querySelectorAll('#waterfall .span-row').length === ${spans.spans.length}`);
  return spans;
}

describe('the span waterfall panel', () => {
  it('shows a bar per span of a multi-specialist run with the latency and tokens the API gives, and the run totals', async () => {
    const spans = await runFromForm('Explain the headphone return policy, the refundable amount for SO20261001, and the September sales report.');
    expect(spans.tokens.total).toBeGreaterThan(0);
    const rows = await rowsInPage();
    expect(rows).toEqual(spans.spans.map((s) => ({ kind: s.kind, name: s.name, status: s.status, startMs: s.startMs, durationMs: s.durationMs, tokens: s.tokens.total })));
    expect(rows.filter((r) => r.kind === 'specialist')).toHaveLength(3);
    expect(rows.filter((r) => r.kind === 'mcp')).toHaveLength(1);
    const totals = page.locator('#waterfall .waterfall-totals');
    expect(await totals.getAttribute('data-tokens-input')).toBe(String(spans.tokens.input));
    expect(await totals.getAttribute('data-tokens-output')).toBe(String(spans.tokens.output));
    expect(await totals.textContent()).toContain(`${spans.tokens.total} tokens`);
    // Bars are drawn: each has a width, and a nested bar starts no further left than the run's.
    const widths = (await page.evaluate(`[...document.querySelectorAll('#waterfall .span-bar')].map((b) => b.getBoundingClientRect().width)`)) as number[];
    expect(widths).toHaveLength(spans.spans.length);
    expect(widths.every((w) => w >= 1)).toBe(true);
  }, 60_000);

  it('switches to the next run opened and shows its spans, not the previous run\'s', async () => {
    const spans = await runFromForm('Query the September 2026 sales report and tell me revenue and order volume.');
    const rows = await rowsInPage();
    expect(rows.map((r) => `${r.kind}:${r.name}`)).toEqual(spans.spans.map((s) => `${s.kind}:${s.name}`));
    expect(rows.some((r) => r.kind === 'specialist')).toBe(false);
    expect(rows[0]!.tokens).toBe(spans.tokens.total);
  }, 60_000);
});
