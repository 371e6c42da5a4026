import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, startServer, type RunningServer } from '../../src/index.js';
import { graphs, scenarios } from '../../machines/index.js';
import { VISION_FIXTURES_DIR, imageRegistry } from '../../specialists/index.js';
import { launchBrowser, type LaunchedBrowser } from '../support/launchBrowser.js';

const QUESTION = 'What does this mean and how do I fix it?';
/** What the answer must say for each fixture picture; a new fixture needs a line here. */
const EXPECTED: Record<string, { says: string; never: string }> = {
  'e02-red-led.png': { says: 'fault code E02', never: 'fully charged' },
  'green-led.png': { says: 'fully charged', never: 'E02' },
};

let store: SqliteRunStore;
let server: RunningServer;
let browser: LaunchedBrowser;
let page: Page;

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-upload-')), 'runs.db') });
  server = await startServer({ store, graphs: [...graphs], scenarios: [...scenarios], scenarioRoot: 'machines', port: 0 });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
});

/** Starts a customer-service run from the free-text box with a picture; resolves with its run id once it ended or waits. */
async function ask(file: { name: string; buffer: Buffer }, status: string): Promise<string> {
  const previous = /#run=(.+)$/.exec(page.url())?.[1];
  await page.selectOption('#graph-select', 'customer-service');
  await page.fill('#message', QUESTION);
  await page.setInputFiles('#image', { name: file.name, mimeType: 'image/png', buffer: file.buffer });
  await page.click('#start-button');
  await page.waitForURL((url) => url.hash.startsWith('#run=') && url.hash !== `#run=${previous ?? ''}`);
  await page.waitForSelector(`body[data-run-status="${status}"]`, { timeout: 30_000 });
  return /#run=(.+)$/.exec(page.url())![1]!;
}

describe('image upload through the workbench page', () => {
  it('answers about what each fixture picture shows', async () => {
    const fixtures = imageRegistry();
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const fixture of fixtures) {
      const runId = await ask({ name: fixture.file, buffer: readFileSync(`${VISION_FIXTURES_DIR}${fixture.file}`) }, 'completed');
      const answer = (await page.textContent('#answer')) ?? '';
      expect(answer, fixture.file).toContain(EXPECTED[fixture.file]!.says);
      expect(answer, fixture.file).not.toContain(EXPECTED[fixture.file]!.never);
      const detail = (await (await fetch(new URL(`/api/runs/${runId}`, server.url))).json()) as { state: { vision: { text: string; recognized: boolean } } };
      expect(detail.state.vision).toMatchObject({ text: fixture.text, recognized: true });
    }
  }, 90_000);

  it('says so when the picture cannot be read, and answers nothing', async () => {
    const cut = readFileSync(`${VISION_FIXTURES_DIR}green-led.png`).subarray(0, 600);
    await ask({ name: 'cut.png', buffer: cut }, 'waiting');
    expect(await page.textContent('#waiting')).toMatch(/Waiting at human_handoff: the attached picture could not be read: the attachment is a damaged PNG image/);
    expect(await page.isHidden('#answer')).toBe(true);
  }, 60_000);
});
