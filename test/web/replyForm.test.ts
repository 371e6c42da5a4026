import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunDetailJson, SqliteRunStore, StateGraph, humanNode, machineDefinition, type RunningServer } from '../../src/index.js';
import { approvalGraph } from '../fixtures/workbenchGraphs.js';
import type { LaunchedBrowser } from '../support/launchBrowser.js';
import { openWorkbench } from '../support/openWorkbench.js';

const Decision = z.object({ approved: z.boolean(), amount: z.number().int().min(0), tier: z.enum(['gold', 'silver']), note: z.string().max(200).optional() });

/** `ask → decide → done`, where `decide` takes a typed reply. */
function decisionGraph(): StateGraph {
  return new StateGraph({ name: 'decision' })
    .addNode('ask', () => 'please decide')
    .addNode('decide', humanNode({ reason: 'decide the refund', reply: Decision, replyKey: 'decision', replyTo: 'state' }))
    .addNode('done', (ctx) => `decided: ${JSON.stringify(ctx.get('decision'))}`)
    .start('ask')
    .addEdge('ask', 'decide')
    .addEdge('decide', 'done');
}

let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;
let page: Page;

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-web-reply-')), 'runs.db') });
  ({ server, browser, page } = await openWorkbench({ store, graphs: [decisionGraph(), approvalGraph()] }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
});

async function startAndWait(graph: string, message: string): Promise<string> {
  await page.selectOption('#graph-select', graph);
  await page.fill('#message', message);
  const before = await page.textContent('#run-id');
  await page.click('#start-button');
  await page.waitForFunction(`document.querySelector('#run-id').textContent !== ${JSON.stringify(before)} && document.body.dataset.runStatus === 'waiting'`);
  await page.waitForSelector('#reply-form:not([hidden])');
  return (await page.textContent('#run-id'))!;
}

describe('the reply form of a human node', () => {
  it('is described in the machine definition as the JSON Schema of the node\'s reply (none for a text reply)', () => {
    const states = machineDefinition(decisionGraph().toMachine()).states;
    expect(states.find((s) => s.nodeId === 'decide')?.replySchema).toEqual(z.toJSONSchema(Decision, { io: 'input' }));
    expect(machineDefinition(approvalGraph().toMachine()).states.find((s) => s.nodeId === 'human')).not.toHaveProperty('replySchema');
  });

  it('is built from the reply schema: the fields make the JSON reply the run stores', async () => {
    const runId = await startAndWait('decision', 'Refund SO20261001');
    expect(await page.isHidden('#reply')).toBe(true);
    expect(await page.getAttribute('#reply-field-approved', 'type')).toBe('checkbox');
    expect(await page.getAttribute('#reply-field-amount', 'type')).toBe('number');
    expect(await page.locator('#reply-field-tier option').allTextContents()).toEqual(['gold', 'silver']);
    expect(await page.textContent('label[for="reply-field-note"]')).toBe('note (optional)');

    // A required field left empty is named and nothing is sent.
    await page.click('#reply-button');
    await page.waitForSelector('#reply-error:not([hidden])');
    expect(await page.textContent('#reply-error')).toBe('amount is required');
    expect(((await (await fetch(new URL(`/api/runs/${runId}`, server.url))).json()) as { status: string }).status).toBe('waiting');

    await page.check('#reply-field-approved');
    await page.fill('#reply-field-amount', '25');
    await page.selectOption('#reply-field-tier', { label: 'silver' });
    await page.click('#reply-button');
    await page.waitForSelector('body[data-run-status="completed"]');
    const detail = RunDetailJson.parse(await (await fetch(new URL(`/api/runs/${runId}`, server.url))).json());
    expect(detail.state['decision']).toEqual({ approved: true, amount: 25, tier: 'silver' });
    expect(detail.outputText).toBe('decided: {"approved":true,"amount":25,"tier":"silver"}');
  }, 60_000);

  it('keeps the text box for a node that takes text, after a schema form was shown', async () => {
    const runId = await startAndWait('approval', 'Refund SO20261001');
    expect(await page.isVisible('#reply')).toBe(true);
    expect(await page.isHidden('#reply-fields')).toBe(true);
    await page.fill('#reply', 'yes, go ahead');
    await page.click('#reply-button');
    await page.waitForSelector('body[data-run-status="completed"]');
    expect(((await (await fetch(new URL(`/api/runs/${runId}`, server.url))).json()) as { outputText: string }).outputText).toBe('approved: yes, go ahead');
  }, 60_000);
});
