import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorJson, RunJson, RunSummaryJson } from '../../src/index.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../../src/testing/index.js';
import { scriptedTurn } from '../machines/scriptedCustomerServiceModel.js';
import { runCli } from '../support/runCli.js';

const RETURN_QUESTION = 'What is the return policy for Aero headphones? Can I return them unused three days after delivery?';
const DISPUTE = 'I completely disagree with this compensation amount—someone needs to resolve this!';
const db = join(mkdtempSync(join(tmpdir(), 'sb-model-edges-')), 'runs.db');

let openai: FakeOpenAIServer;
let online: Record<string, string>;
beforeAll(async () => {
  openai = await startFakeOpenAIServer();
  openai.enqueue(...Array.from({ length: 300 }, () => scriptedTurn));
  online = { OPENAI_API_KEY: 'sk-test-fake', OPENAI_BASE_URL: openai.baseURL, SWITCHBOARD_MODEL: 'gpt-test', SWITCHBOARD_MODELS: 'gpt-test-large', SWITCHBOARD_MODEL_MAX_RETRIES: '0' };
});
afterAll(() => openai?.close());

const cli = (...args: string[]) => runCli(['--db', db, ...args], { env: online });

async function withRequests(...args: string[]) {
  const before = openai.requests.length;
  const done = await cli(...args);
  return { done, models: new Set(openai.requests.slice(before).map((r) => r.body['model'])) };
}

describe('switchboard --model beyond the first cases: resume, fork, twice, refusals', () => {
  it('a resumed run keeps its model', async () => {
    const started = RunJson.parse(JSON.parse((await cli('start', 'customer-service', DISPUTE, '--model', 'gpt-test-large', '--json')).stdout));
    expect(started.status).toBe('waiting');
    expect(started.model).toBe('gpt-test-large');
    const { done, models } = await withRequests('resume', started.runId, '--reply', 'We approved a voucher.', '--json');
    expect(done.status, done.stderr).toBe(0);
    const resumed = RunJson.parse(JSON.parse(done.stdout));
    expect(resumed.model).toBe('gpt-test-large');
    for (const m of models) expect(m).toBe('gpt-test-large');
  }, 120_000);

  it('a fork keeps its model, at step 0 and later', async () => {
    const first = RunJson.parse(JSON.parse((await cli('run', RETURN_QUESTION, '--model', 'gpt-test-large', '--json')).stdout));
    expect(first.model).toBe('gpt-test-large');
    for (const at of ['0', '2']) {
      const { done, models } = await withRequests('fork', first.runId, '--at', at, '--json');
      expect(done.status, done.stderr).toBe(0);
      const fork = RunJson.parse(JSON.parse(done.stdout));
      expect(fork.model, `fork at ${at}`).toBe('gpt-test-large');
      expect([...models], `fork at ${at}`).toEqual(models.size === 0 ? [] : ['gpt-test-large']);
      const listed = RunSummaryJson.array().parse(JSON.parse((await cli('runs', '--json')).stdout));
      expect(listed.find((r) => r.runId === fork.runId)?.model).toBe('gpt-test-large');
    }
  }, 120_000);

  it('a run paused before the node that records the model keeps it when resumed', async () => {
    const paused = RunJson.parse(JSON.parse((await cli('start', 'customer-service', RETURN_QUESTION, '--model', 'gpt-test-large', '--break-before', 'ingest', '--json')).stdout));
    expect(paused.status).toBe('waiting');
    // Nothing recorded the model yet: the JSON says null (as documented), not a guess.
    expect(paused.model).toBeNull();
    const { done, models } = await withRequests('resume', paused.runId, '--json');
    expect(done.status, done.stderr).toBe(0);
    expect(RunJson.parse(JSON.parse(done.stdout))).toMatchObject({ status: 'completed', model: 'gpt-test-large' });
    expect([...models]).toEqual(['gpt-test-large']);
  }, 120_000);

  it('takes the last --model when it is given twice, as every option that takes one value', async () => {
    const { done, models } = await withRequests('run', RETURN_QUESTION, '--model', 'gpt-test', '--model', 'gpt-test-large', '--json');
    expect(done.status, done.stderr).toBe(0);
    expect(RunJson.parse(JSON.parse(done.stdout)).model).toBe('gpt-test-large');
    expect([...models]).toEqual(['gpt-test-large']);
  }, 120_000);

  it('answers a refused --model in the ErrorJson shape with exit 2: on resume, without a name, on a typed workflow, a name of 100,000 characters', async () => {
    const before = JSON.parse((await cli('runs', '--json', '--limit', '10000')).stdout) as unknown[];
    const refused = await Promise.all([
      cli('resume', 'no-such-run', '--model', 'gpt-test', '--json'),
      cli('run', 'hello', '--json', '--model'),
      cli('--graphs', 'test/fixtures/workflowGraphs.ts', 'start', 'tally', 'a b', '--model', 'offline', '--json'),
      cli('run', 'hello', '--model', 'x'.repeat(100_000), '--json'),
    ]);
    const errors = refused.map((r) => {
      expect(r.status, r.stderr.slice(0, 300)).toBe(2);
      expect(r.stdout).toBe('');
      return ErrorJson.parse(JSON.parse(r.stderr)).error;
    });
    expect(errors.map((e) => e.code)).toEqual(['usage', 'usage', 'model_not_offered', 'unknown_model']);
    // The long name comes back cut short: the answer stays a few lines, not 100 KB.
    expect(errors[3]!.message).toMatch(/^--model: unknown model "x{60}"… \(100000 characters\); known models: gpt-test, gpt-test-large, offline$/);
    expect(JSON.parse((await cli('runs', '--json', '--limit', '10000')).stdout)).toHaveLength(before.length);
  }, 120_000);
});
