import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refundApproval } from '../../machines/refundApproval.js';
import { runCli } from '../support/runCli.js';
import { testWorkbench } from '../server/workbenchTarget.js';

const db = join(mkdtempSync(join(tmpdir(), 'sb-budget-')), 'runs.db');
const cli = (...args: string[]) => runCli(['--db', db, ...args]);
const wb = testWorkbench({ graphs: [refundApproval()], scenarios: [] });
afterAll(() => wb.shutdown());

const MESSAGE = 'Refund SO20261001 please';
type RunOut = { runId: string; status: string; path: string[]; budgetExceeded?: unknown; spent?: { iterations: number; tokens: number } };

/** Each bad value, the CLI flag and the body field it goes in, and the rule both must state. */
const BAD: Array<[string, string, string, unknown, string]> = [
  ['--max-tokens', 'maxTokens', '1.5', '1.5', 'must be a whole number of tokens, 0 or more, in plain decimal digits (e.g. 20000); received "1.5"'],
  ['--max-cost', 'maxCost', 'cheap', 'cheap', 'must be US dollars as a plain decimal number, 0 or more (e.g. 0.05); received "cheap"'],
  ['--max-iterations', 'maxIterations', '0', '0', 'must be a whole number of steps, 1 or more, in plain decimal digits (e.g. 30); received "0"'],
  ['--max-duration', 'maxDuration', '1e3', '1e3', 'must be milliseconds as a whole number from 1 to 2147483647 (e.g. 60000 for a minute); received "1e3"'],
  ['--max-duration', 'maxDuration', '2147483648', 2147483648, 'must be milliseconds as a whole number from 1 to 2147483647 (e.g. 60000 for a minute); received'],
];

describe('budget options of switchboard run and start', () => {
  it.each([['start', ['start', 'refund-approval', MESSAGE]], ['run', ['run', MESSAGE, '--graph', 'refund-approval']]])('%s --max-iterations stops the stored run budget-exceeded (exit 1)', async (_name, args) => {
    const done = await cli(...args, '--max-iterations', '1', '--json');
    expect(done.status, done.stderr).toBe(1);
    const run = JSON.parse(done.stdout) as RunOut;
    expect(run).toMatchObject({ status: 'budget-exceeded', path: ['draft'], budgetExceeded: { budget: 'maxIterations', limit: 1, spent: 1 } });
    const shown = JSON.parse((await cli('show', run.runId, '--json')).stdout) as { status: string };
    expect(shown.status).toBe('budget-exceeded');
  }, 120_000);

  it('start takes every budget together, and a run with room left waits as without them, metered', async () => {
    const done = await cli('start', 'refund-approval', MESSAGE, '--max-cost', '0.5', '--max-tokens', '20000', '--max-iterations', '30', '--max-duration', '600000', '--json');
    expect(done.status, done.stderr).toBe(3);
    const run = JSON.parse(done.stdout) as RunOut;
    expect(run.status).toBe('waiting');
    expect(run.spent).toMatchObject({ iterations: 2, tokens: 0 });
    const plain = JSON.parse((await cli('start', 'refund-approval', MESSAGE, '--json')).stdout) as RunOut;
    expect(plain.spent).toBeUndefined();
  }, 120_000);

  it('refuses each bad value with a usage error naming the flag and the rule, for run and start, and stores nothing', async () => {
    const before = (JSON.parse((await cli('runs', '--json')).stdout) as unknown[]).length;
    const refusals = BAD.flatMap(([flag, _field, value, _json, rule]) =>
      [['start', 'refund-approval', MESSAGE], ['run', MESSAGE, '--graph', 'refund-approval']].map(async (args) => ({ done: await cli(...args, flag, value), expected: `${flag}: ${rule}` })),
    );
    for (const { done, expected } of await Promise.all(refusals)) {
      expect(done.status, done.stderr).toBe(2);
      expect(done.stderr).toContain(expected);
    }
    expect((JSON.parse((await cli('runs', '--json')).stdout) as unknown[]).length).toBe(before);
  }, 300_000);
});

describe('budget in POST /api/runs', () => {
  it('stops the run budget-exceeded, stored as such', async () => {
    const started = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'refund-approval', message: MESSAGE, budget: { maxIterations: 1 } } });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: 'budget-exceeded', path: ['draft'], budgetExceeded: { budget: 'maxIterations', limit: 1, spent: 1 } });
    expect((await wb.store.getRun(started.body.runId))?.status).toBe('budget-exceeded');
  });

  it('takes numbers and decimal strings, as the CLI does', async () => {
    const started = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'refund-approval', message: MESSAGE, budget: { maxCost: 0.5, maxTokens: '20000', maxDuration: 600_000 } } });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: 'waiting', spent: { iterations: 2, tokens: 0 } });
  });

  it.each(BAD)('%s / budget.%s: a 400 naming the field with the same rule as the CLI', async (_flag, field, _value, json, rule) => {
    const refused = await wb.json('/api/runs', { method: 'POST', json: { graph: 'refund-approval', message: MESSAGE, budget: { [field]: json } } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('bad_request');
    expect(refused.body.error.message).toContain(`budget.${field}: ${rule}`);
  });

  it('refuses an unknown budget and a budget that is not an object', async () => {
    for (const budget of [{ maxTurns: 3 }, { prices: {} }, 'cheap', [1]]) {
      const refused = await wb.json('/api/runs', { method: 'POST', json: { graph: 'refund-approval', message: MESSAGE, budget } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toContain('budget');
    }
    expect(await wb.store.listRuns({ status: 'budget-exceeded', limit: 100 })).toHaveLength(1);
  });
});
