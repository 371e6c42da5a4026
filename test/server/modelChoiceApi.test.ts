import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorJson, RunDetailJson, RunJson, RunSummaryJson, modelsFromEnv, type ModelCatalog } from '../../src/index.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../../src/testing/index.js';
import { customerService } from '../../machines/customerService.js';
import { scenarios } from '../../machines/scenarios.js';
import { salesReportService } from '../../specialists/report/salesReportService.js';
import { scriptedTurn } from '../machines/scriptedCustomerServiceModel.js';
import { lookupLoopGraph } from '../fixtures/workbenchGraphs.js';
import { graphs as nestedGraphs, models as nestedModels } from '../fixtures/nestedModelGraphs.js';
import { testWorkbench, type TestWorkbench } from './workbenchTarget.js';

const RETURN_QUESTION = 'What is the return policy for Aero headphones? Can I return them unused three days after delivery?';
const MULTI = scenarios.find((s) => s.id === '5-multi')!.message;

let openai: FakeOpenAIServer;
let catalog: ModelCatalog;
let wb: TestWorkbench;
const bare = testWorkbench({ graphs: [lookupLoopGraph(1)] });
/** Graphs whose modelNodes sit in a subgraph, in a coordinator's specialist and in a lazyNode. */
const nested = testWorkbench({ graphs: nestedGraphs, models: nestedModels });

beforeAll(async () => {
  openai = await startFakeOpenAIServer();
  openai.enqueue(...Array.from({ length: 400 }, () => scriptedTurn));
  // The models as `switchboard serve` gets them from a graphs module: two hosted names on the fake server, then offline.
  catalog = modelsFromEnv({ OPENAI_API_KEY: 'sk-test-fake', OPENAI_BASE_URL: openai.baseURL, SWITCHBOARD_MODEL: 'gpt-test', SWITCHBOARD_MODELS: 'gpt-test-large, gpt-test', SWITCHBOARD_MODEL_MAX_RETRIES: '0' });
  wb = testWorkbench({ graphs: [customerService({ models: catalog }), lookupLoopGraph(1)], models: catalog.names });
});
afterAll(async () => {
  await wb?.shutdown();
  await bare.shutdown();
  await nested.shutdown();
  await openai?.close();
  await salesReportService().close();
});

/** Starts a run through the API, waits for it, and returns its stored detail and the model requests it made. */
async function start(body: Record<string, unknown>) {
  const before = openai.requests.length;
  const started = await wb.json('/api/runs?wait=true', { method: 'POST', json: body });
  expect(started.status).toBe(200);
  const detail = RunDetailJson.parse((await wb.json(`/api/runs/${started.body.runId}`)).body);
  return { detail, requests: openai.requests.slice(before) };
}

describe('POST /api/runs model', () => {
  it('lists the models a start may choose, the default first', async () => {
    expect((await wb.json('/api/graphs')).body.models).toEqual(['gpt-test', 'gpt-test-large', 'offline']);
    // Each graph lists the models it runs on: none for a graph with no modelNode.
    expect((await wb.json('/api/graphs')).body.graphs).toEqual([
      { name: 'customer-service', models: ['gpt-test', 'gpt-test-large', 'offline'] },
      { name: 'lookup-loop', models: [] },
    ]);
    expect((await bare.json('/api/graphs')).body.models).toEqual([]);
  });

  it('runs on the embedded offline model when offline is chosen: no request reaches the server', async () => {
    const { detail, requests } = await start({ message: MULTI, model: 'offline' });
    expect(detail.status).toBe('completed');
    expect(detail.path).toContain('specialist');
    expect(detail.state['runModel']).toBe('offline');
    expect(requests).toEqual([]);
  }, 60_000);

  it('sends every model call of the run, its specialists included, to the chosen hosted model', async () => {
    const { detail, requests } = await start({ message: MULTI, model: 'gpt-test-large' });
    expect(detail.status).toBe('completed');
    expect(detail.state['runModel']).toBe('gpt-test-large');
    // The classifier, the three specialists' agents and the policy writer all called it.
    expect(requests.length).toBeGreaterThanOrEqual(4);
    expect(new Set(requests.map((r) => r.body['model']))).toEqual(new Set(['gpt-test-large']));
  }, 60_000);

  it('uses the default model when none is chosen and records it with the run', async () => {
    const { detail, requests } = await start({ message: RETURN_QUESTION });
    expect(detail.status).toBe('completed');
    expect(detail.state['runModel']).toBe('gpt-test');
    expect(requests.length).toBeGreaterThan(0);
    expect(new Set(requests.map((r) => r.body['model']))).toEqual(new Set(['gpt-test']));
  }, 60_000);

  it('refuses a model the server does not offer, naming the known ones, and stores nothing', async () => {
    const before = (await wb.json('/api/runs?limit=500')).body.length;
    const refused = await wb.json('/api/runs', { method: 'POST', json: { message: 'hi', model: 'gpt-5-imaginary' } });
    expect(refused.status).toBe(400);
    const error = ErrorJson.parse(refused.body).error;
    expect(error.code).toBe('unknown_model');
    expect(error.message).toBe('POST /api/runs model: unknown model "gpt-5-imaginary"; known models: gpt-test, gpt-test-large, offline');
    expect((await wb.json('/api/runs?limit=500')).body.length).toBe(before);
  });

  it('refuses a model where there is no choice to make, instead of ignoring it: a server offering no models, a graph with no modelNode', async () => {
    const before = (await wb.json('/api/runs?limit=500')).body.length;
    const none = await bare.json('/api/runs', { method: 'POST', json: { message: 'hi', model: 'offline' } });
    expect(none.status).toBe(400);
    expect(ErrorJson.parse(none.body).error).toMatchObject({ code: 'model_not_offered', message: expect.stringContaining('the graphs module offers no model to choose') });
    // The server offers `offline`, but the lookup-loop graph runs no node on a chosen model: the name would go nowhere.
    const ignored = await wb.json('/api/runs', { method: 'POST', json: { message: 'hi', graph: 'lookup-loop', model: 'offline' } });
    expect(ignored.status).toBe(400);
    expect(ErrorJson.parse(ignored.body).error).toMatchObject({ code: 'model_not_offered', message: expect.stringContaining('graph "lookup-loop" runs no node on a chosen model') });
    expect((await wb.json('/api/runs?limit=500')).body.length).toBe(before);
    expect((await bare.json('/api/runs?limit=500')).body).toEqual([]);
  });

  it('offers and runs on the models of modelNodes nested in a subgraph or a specialist; refuses one for a lazyNode, saying how to fix it', async () => {
    expect((await nested.json('/api/graphs')).body.graphs).toEqual([
      { name: 'subgraph', models: ['small', 'large'] },
      { name: 'coordinated', models: ['small', 'large'] },
      { name: 'lazy', models: [] },
    ]);
    for (const graph of ['subgraph', 'coordinated']) {
      const started = await nested.json('/api/runs?wait=true', { method: 'POST', json: { message: 'hi', graph, model: 'large' } });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      expect(RunJson.parse(started.body)).toMatchObject({ status: 'completed', outputText: 'ran on large', model: 'large' });
    }
    const lazy = await nested.json('/api/runs', { method: 'POST', json: { message: 'hi', graph: 'lazy', model: 'large' } });
    expect(lazy.status).toBe(400);
    expect(ErrorJson.parse(lazy.body).error).toMatchObject({ code: 'model_not_offered', message: expect.stringContaining("its node \"draft\" is a lazyNode, whose models are not known before it loads: for a modelNode, put the lazyNode inside the modelNode's build instead") });
  }, 60_000);

  it('carries the model in the run JSON: the finished leg, the stored run and the run list', async () => {
    const started = await wb.json('/api/runs?wait=true', { method: 'POST', json: { message: RETURN_QUESTION, model: 'offline' } });
    const leg = RunJson.parse(started.body);
    expect(leg.model).toBe('offline');
    expect(RunDetailJson.parse((await wb.json(`/api/runs/${leg.runId}`)).body).model).toBe('offline');
    const listed = RunSummaryJson.array().parse((await wb.json('/api/runs?limit=500')).body);
    expect(listed.find((r) => r.runId === leg.runId)?.model).toBe('offline');
    // A graph with no model choice records none.
    const plain = RunJson.parse((await wb.json('/api/runs?wait=true', { method: 'POST', json: { message: 'hi', graph: 'lookup-loop' } })).body);
    expect(plain.model).toBeNull();
  }, 60_000);
});
