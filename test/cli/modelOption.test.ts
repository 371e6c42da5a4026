import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorJson, RunDetailJson, RunJson, RunSummaryJson } from '../../src/index.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../../src/testing/index.js';
import { scriptedTurn } from '../machines/scriptedCustomerServiceModel.js';
import { runCli } from '../support/runCli.js';

const DISPUTE = 'I completely disagree with this compensation amount—someone needs to resolve this!';
const RETURN_QUESTION = 'What is the return policy for Aero headphones? Can I return them unused three days after delivery?';
const db = join(mkdtempSync(join(tmpdir(), 'sb-model-')), 'runs.db');

let openai: FakeOpenAIServer;
/** The environment of a user with a key: two hosted models on the fake server, then offline. */
let online: Record<string, string>;
beforeAll(async () => {
  openai = await startFakeOpenAIServer();
  openai.enqueue(...Array.from({ length: 400 }, () => scriptedTurn));
  online = { OPENAI_API_KEY: 'sk-test-fake', OPENAI_BASE_URL: openai.baseURL, SWITCHBOARD_MODEL: 'gpt-test', SWITCHBOARD_MODELS: 'gpt-test-large', SWITCHBOARD_MODEL_MAX_RETRIES: '0' };
});
afterAll(() => openai?.close());

const cli = (...args: string[]) => runCli(['--db', db, ...args], { env: online });

/** Runs a command and returns it with the model requests it made. */
async function withRequests(...args: string[]) {
  const before = openai.requests.length;
  const done = await cli(...args);
  return { done, requests: openai.requests.slice(before) };
}

/** A command and the set of model names its requests went to. */
async function withRequestModels(...args: string[]) {
  const { done, requests } = await withRequests(...args);
  return { done, requests, models: new Set(requests.map((r) => r.body['model'])) };
}

const storedCount = async () => (JSON.parse((await cli('runs', '--json', '--limit', '10000')).stdout) as unknown[]).length;

describe('switchboard run|start --model', () => {
  it('run --model sends every model call of the run to the chosen model and prints it in the run JSON, stored with the run', async () => {
    const { done, requests } = await withRequests('run', RETURN_QUESTION, '--model', 'gpt-test-large', '--json');
    expect(done.status, done.stderr).toBe(0);
    const run = RunJson.parse(JSON.parse(done.stdout));
    expect(run.status).toBe('completed');
    expect(run.model).toBe('gpt-test-large');
    expect(requests.length).toBeGreaterThan(0);
    expect(new Set(requests.map((r) => r.body['model']))).toEqual(new Set(['gpt-test-large']));
    const shown = RunDetailJson.parse(JSON.parse((await cli('show', run.runId, '--json')).stdout));
    expect(shown.model).toBe('gpt-test-large');
    const listed = RunSummaryJson.array().parse(JSON.parse((await cli('runs', '--json')).stdout));
    expect(listed.find((r) => r.runId === run.runId)?.model).toBe('gpt-test-large');
  }, 120_000);

  it('start --model offline runs on the embedded model: no request reaches the hosted server', async () => {
    const { done, requests } = await withRequests('start', 'customer-service', RETURN_QUESTION, '--model', 'offline', '--json');
    expect(done.status, done.stderr).toBe(0);
    expect(RunJson.parse(JSON.parse(done.stdout))).toMatchObject({ status: 'completed', model: 'offline' });
    expect(requests).toEqual([]);
    // The text output names the model too: start, show and run.
    const text = await cli('start', 'customer-service', RETURN_QUESTION, '--model', 'offline');
    expect(text.stdout).toMatch(/^model: offline$/m);
    const runId = /^run (\S+): completed$/m.exec(text.stdout)?.[1];
    expect(runId, text.stdout).toBeDefined();
    expect((await cli('show', runId!)).stdout).toMatch(/^model: offline$/m);
    expect((await cli('run', RETURN_QUESTION, '--model', 'offline')).stdout).toMatch(/: completed {3}path: .* {3}model: offline$/m);
    expect((await cli('start', 'refund-approval', 'Refund SO20261001 please')).stdout).not.toMatch(/^model:/m);
  }, 120_000);

  it('start without --model runs on the default model and says so in the run JSON', async () => {
    const { done, requests } = await withRequests('start', 'customer-service', RETURN_QUESTION, '--json');
    expect(done.status, done.stderr).toBe(0);
    expect(RunJson.parse(JSON.parse(done.stdout)).model).toBe('gpt-test');
    expect(new Set(requests.map((r) => r.body['model']))).toEqual(new Set(['gpt-test']));
  }, 120_000);

  it('refuses an unknown model with exit 2 and the code unknown_model naming the known models, as text and as JSON, and stores nothing', async () => {
    const before = await storedCount();
    const [text, json] = await Promise.all([
      cli('run', RETURN_QUESTION, '--model', 'gpt-5-imaginary'),
      cli('start', 'customer-service', RETURN_QUESTION, '--model', 'gpt-5-imaginary', '--json'),
    ]);
    expect(text.status).toBe(2);
    expect(text.stderr.trim()).toBe('switchboard: --model: unknown model "gpt-5-imaginary"; known models: gpt-test, gpt-test-large, offline [unknown_model]');
    expect(json.status).toBe(2);
    expect(json.stdout).toBe('');
    expect(ErrorJson.parse(JSON.parse(json.stderr)).error).toEqual({ code: 'unknown_model', message: '--model: unknown model "gpt-5-imaginary"; known models: gpt-test, gpt-test-large, offline' });
    expect(await storedCount()).toBe(before);
  }, 120_000);

  it('refuses --model where there is no model to choose instead of ignoring it: a graph with no modelNode, a graphs module with no `models`', async () => {
    const before = await storedCount();
    const [graph, module] = await Promise.all([
      cli('start', 'refund-approval', 'Refund SO20261001 please', '--model', 'offline', '--json'),
      cli('--graphs', 'test/fixtures/echoGraphs.ts', 'run', 'hello', '--model', 'offline'),
    ]);
    expect(graph.status).toBe(2);
    expect(ErrorJson.parse(JSON.parse(graph.stderr)).error).toMatchObject({ code: 'model_not_offered', message: expect.stringContaining('graph "refund-approval" runs no node on a chosen model') });
    expect(module.status).toBe(2);
    expect(module.stderr).toContain('--model: the graphs module offers no model to choose (it exports no `models`)');
    expect(module.stderr).toContain('[model_not_offered]');
    expect(await storedCount()).toBe(before);
  }, 120_000);

  it('accepts a model of a modelNode nested in a subgraph or a specialist and runs on it; names a lazyNode when it refuses one', async () => {
    const nested = (...args: string[]) => cli('--graphs', 'test/fixtures/nestedModelGraphs.ts', ...args);
    const [subgraph, coordinated, lazy] = await Promise.all([
      nested('start', 'subgraph', 'hi', '--model', 'large', '--json'),
      nested('start', 'coordinated', 'hi', '--model', 'large', '--json'),
      nested('start', 'lazy', 'hi', '--model', 'large', '--json'),
    ]);
    for (const done of [subgraph, coordinated]) {
      expect(done.status, done.stderr).toBe(0);
      expect(RunJson.parse(JSON.parse(done.stdout))).toMatchObject({ status: 'completed', outputText: 'ran on large', model: 'large' });
    }
    expect(lazy.status).toBe(2);
    const refused = ErrorJson.parse(JSON.parse(lazy.stderr)).error;
    expect(refused.code).toBe('model_not_offered');
    expect(refused.message).toContain('its node "draft" is a lazyNode');
    expect(refused.message).toContain("put the lazyNode inside the modelNode's build instead");
  }, 120_000);

  it('lists --model in the help of run and start', async () => {
    for (const command of ['run', 'start']) {
      const help = await cli(command, '--help');
      expect(help.stdout).toMatch(/--model <name>\s+the model the run's agents use/);
    }
  }, 60_000);
});

describe('switchboard --model beyond the first cases: resume, fork, twice, refusals', () => {
  it('a resumed run keeps its model', async () => {
    const started = RunJson.parse(JSON.parse((await cli('start', 'customer-service', DISPUTE, '--model', 'gpt-test-large', '--json')).stdout));
    expect(started.status).toBe('waiting');
    expect(started.model).toBe('gpt-test-large');
    const { done, models } = await withRequestModels('resume', started.runId, '--reply', 'We approved a voucher.', '--json');
    expect(done.status, done.stderr).toBe(0);
    const resumed = RunJson.parse(JSON.parse(done.stdout));
    expect(resumed.model).toBe('gpt-test-large');
    for (const m of models) expect(m).toBe('gpt-test-large');
  }, 120_000);

  it('a fork keeps its model, at step 0 and later', async () => {
    const first = RunJson.parse(JSON.parse((await cli('run', RETURN_QUESTION, '--model', 'gpt-test-large', '--json')).stdout));
    expect(first.model).toBe('gpt-test-large');
    for (const at of ['0', '2']) {
      const { done, models } = await withRequestModels('fork', first.runId, '--at', at, '--json');
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
    const { done, models } = await withRequestModels('resume', paused.runId, '--json');
    expect(done.status, done.stderr).toBe(0);
    expect(RunJson.parse(JSON.parse(done.stdout))).toMatchObject({ status: 'completed', model: 'gpt-test-large' });
    expect([...models]).toEqual(['gpt-test-large']);
  }, 120_000);

  it('takes the last --model when it is given twice, as every option that takes one value', async () => {
    const { done, models } = await withRequestModels('run', RETURN_QUESTION, '--model', 'gpt-test', '--model', 'gpt-test-large', '--json');
    expect(done.status, done.stderr).toBe(0);
    expect(RunJson.parse(JSON.parse(done.stdout)).model).toBe('gpt-test-large');
    expect([...models]).toEqual(['gpt-test-large']);
  }, 120_000);

  it('answers a refused --model in the ErrorJson shape with exit 2: on resume, without a name, on a typed workflow, a name of 100,000 characters', async () => {
    const before = await storedCount();
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
    expect(await storedCount()).toBe(before);
  }, 120_000);
});
