import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunDetailJson, SqliteRunStore, modelsFromEnv, type RunningServer } from '../../src/index.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../../src/testing/index.js';
import { customerService } from '../../machines/customerService.js';
import { faults } from '../../machines/index.js';
import { salesReportService } from '../../specialists/report/salesReportService.js';
import { scriptedTurn } from '../machines/scriptedCustomerServiceModel.js';
import { lookupLoopGraph } from '../fixtures/workbenchGraphs.js';
import type { LaunchedBrowser } from '../support/launchBrowser.js';
import { openWorkbench } from '../support/openWorkbench.js';

let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;
let page: Page;
let openai: FakeOpenAIServer;

const REPORT = 'Query the September 2026 sales report and tell me revenue and order volume.';
const RETURN_QUESTION = 'What is the return policy for Aero headphones? Can I return them unused three days after delivery?';

beforeAll(async () => {
  // The default model is served by the fake OpenAI-compatible server (15 tokens a call); `offline` is the embedded one.
  openai = await startFakeOpenAIServer();
  openai.enqueue(...Array.from({ length: 200 }, () => scriptedTurn));
  const models = modelsFromEnv({ OPENAI_API_KEY: 'sk-test-fake', OPENAI_BASE_URL: openai.baseURL, SWITCHBOARD_MODEL: 'gpt-test', SWITCHBOARD_MODEL_MAX_RETRIES: '0' });
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-web-start-')), 'runs.db') });
  ({ server, browser, page } = await openWorkbench({ store, graphs: [customerService({ models }), lookupLoopGraph(1)], faults, models: models.names }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
  await openai?.close();
  await salesReportService().close();
});

const detail = async (runId: string) => RunDetailJson.parse(await (await fetch(new URL(`/api/runs/${runId}`, server.url))).json());

/** Starts a run with the same body through the API (waiting for it) and returns its stored detail. */
async function startThroughApi(body: Record<string, unknown>) {
  const res = await fetch(new URL('/api/runs?wait=true', server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return detail(((await res.json()) as { runId: string }).runId);
}

/** Fills the start form (the run options opened), submits it and waits for the run to end; its stored detail. */
async function startFromForm(graph: string, message: string, options: { budget?: Record<string, string>; faults?: string[]; model?: string }) {
  await page.selectOption('#graph-select', graph);
  await page.fill('#message', message);
  if (!(await page.locator('.run-options').evaluate((d) => (d as unknown as { open: boolean }).open))) await page.click('.run-options summary');
  // The model select is there only for a graph that runs on a chosen model.
  if (options.model !== undefined || (await page.isVisible('#model-select'))) await page.selectOption('#model-select', options.model ?? 'gpt-test');
  for (const key of ['maxCost', 'maxTokens', 'maxIterations', 'maxDuration']) await page.fill(`#budget-${key}`, options.budget?.[key] ?? '');
  for (const name of faults) await page.setChecked(`#faults input[value="${name}"]`, options.faults?.includes(name) ?? false);
  const before = await page.textContent('#run-id');
  await page.click('#start-button');
  await page.waitForFunction(`document.querySelector('#run-id').textContent !== ${JSON.stringify(before)} && document.body.dataset.runStatus !== 'running' && document.body.dataset.runStatus !== 'none'`);
  return detail((await page.textContent('#run-id'))!);
}

describe('the start form', () => {
  it('starts a run with a step budget that ends budget-exceeded, as the API does', async () => {
    const fromForm = await startFromForm('lookup-loop', 'check the order', { budget: { maxIterations: '2' } });
    const fromApi = await startThroughApi({ graph: 'lookup-loop', message: 'check the order', budget: { maxIterations: 2 } });
    expect(fromForm.status).toBe('budget-exceeded');
    expect(await page.getAttribute('body', 'data-run-status')).toBe('budget-exceeded');
    expect(await page.textContent('#run-status')).toBe('budget-exceeded');
    expect({ status: fromForm.status, path: fromForm.path, steps: fromForm.steps }).toEqual({ status: fromApi.status, path: fromApi.path, steps: fromApi.steps });
  }, 60_000);

  it('starts a run with a token budget that the model calls spend, handled as the graph says, as the API does', async () => {
    const fromForm = await startFromForm('customer-service', REPORT, { budget: { maxTokens: '20' } });
    const fromApi = await startThroughApi({ graph: 'customer-service', message: REPORT, budget: { maxTokens: 20 } });
    // customer-service hands a spent budget to a person (its onBudgetExceeded node): the run waits.
    expect(fromForm.status).toBe('waiting');
    expect(fromForm.waitReason).toContain('token');
    expect({ status: fromForm.status, path: fromForm.path, waitReason: fromForm.waitReason }).toEqual({ status: fromApi.status, path: fromApi.path, waitReason: fromApi.waitReason });
    // Without the budget the same request completes.
    const unbounded = await startFromForm('customer-service', REPORT, {});
    expect(unbounded.status).toBe('completed');
  }, 60_000);

  it('injects the faults ticked in the form', async () => {
    expect(await page.locator('#faults input[name="fault"]').evaluateAll((boxes) => boxes.map((b) => (b as unknown as { value: string }).value))).toEqual(faults);
    const run = await startFromForm('customer-service', RETURN_QUESTION, { faults: ['retrieval_gap'] });
    expect(run.state['faults']).toEqual(['retrieval_gap']);
    expect(run.path).toContain('requery');
  }, 60_000);

  it('runs on the model chosen in the form: offline sends nothing to the model server, the hosted one does, and the run shows which', async () => {
    expect(await page.locator('#model-select option').evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value))).toEqual(['gpt-test', 'offline']);
    const before = openai.requests.length;
    const offline = await startFromForm('customer-service', RETURN_QUESTION, { model: 'offline' });
    expect(offline.status).toBe('completed');
    expect(offline.state['runModel']).toBe('offline');
    expect(openai.requests.length).toBe(before);
    await page.waitForFunction(`document.querySelector('#run-model').textContent === 'model offline'`);
    const hosted = await startFromForm('customer-service', RETURN_QUESTION, { model: 'gpt-test' });
    expect(hosted.status).toBe('completed');
    expect(hosted.state['runModel']).toBe('gpt-test');
    const sent = openai.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent.map((r) => r.body['model']))).toEqual(new Set(['gpt-test']));
    await page.waitForFunction(`document.querySelector('#run-model').textContent === 'model gpt-test'`);
  }, 60_000);

  it('offers the model select only for a graph that runs on a chosen model, so a start of another graph sends none (the API would refuse it)', async () => {
    await page.selectOption('#graph-select', 'lookup-loop');
    if (!(await page.locator('.run-options').evaluate((d) => (d as unknown as { open: boolean }).open))) await page.click('.run-options summary');
    await page.waitForSelector('#model-select', { state: 'hidden' });
    const run = await startFromForm('lookup-loop', 'check the order', {});
    expect(await page.isHidden('#start-error')).toBe(true);
    expect(run.state['runModel']).toBeUndefined();
    await page.selectOption('#graph-select', 'customer-service');
    await page.waitForSelector('#model-select', { state: 'visible' });
    expect(await page.locator('#model-select option').evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value))).toEqual(['gpt-test', 'offline']);
  }, 60_000);

  it('shows the API\'s refusal of a budget that is not a whole number and starts nothing', async () => {
    const runsBefore = ((await (await fetch(new URL('/api/runs?limit=500', server.url))).json()) as unknown[]).length;
    await page.fill('#message', 'check');
    await page.fill('#budget-maxTokens', '1.5');
    await page.click('#start-button');
    await page.waitForSelector('#start-error:not([hidden])');
    expect(await page.textContent('#start-error')).toContain('maxTokens');
    expect(((await (await fetch(new URL('/api/runs?limit=500', server.url))).json()) as unknown[]).length).toBe(runsBefore);
  }, 60_000);
});
