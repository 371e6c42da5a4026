import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refundApproval } from '../../machines/refundApproval.js';
import { loadDataset } from '../../machines/customerService/dataset/loadDataset.js';
import { evaluateMessages } from '../../machines/customerService/eval/evaluateMessages.js';
import { testWorkbench } from './workbenchTarget.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-eval-'));
const file = join(dir, 'latest.json');
const wb = testWorkbench({ graphs: [refundApproval()], evalFile: file });
afterAll(() => wb.shutdown());

describe('GET /api/eval', () => {
  it('says how to make a report while there is none, and refuses a file that is not one', async () => {
    const none = await wb.json('/api/eval');
    expect(none.status).toBe(404);
    expect(none.body.error.message).toContain('npm run eval');
    writeFileSync(file, '{"route": 1}');
    expect((await wb.json('/api/eval')).status).toBe(500);
  });

  it('serves the summary of the last report, with the count of missed messages', async () => {
    // A real (small) evaluation: three held-out messages through the offline graph, one labelled wrongly on purpose.
    const messages = loadDataset('heldout').filter((m) => ['h001', 'h021', 'h103'].includes(m.id));
    const wrong = { ...messages[0]!, id: 'x001', route: 'rag' as const };
    const report = await evaluateMessages([...messages, wrong], { concurrency: 1 });
    writeFileSync(file, JSON.stringify(report));
    const got = await wb.json('/api/eval');
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ messages: 4, model: 'offline', route: { correct: 3, total: 4, percent: 75 }, misses: 1 });
    expect(got.body.confusion.general.general).toBe(1);
    expect(got.body.confusion.rag.general).toBe(1);
    expect(got.body.cases).toBeUndefined();
  }, 120_000);
});
