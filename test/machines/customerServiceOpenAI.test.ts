import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel, type TaskResult, type WorkflowRun } from '../../src/index.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../../src/testing/index.js';
import { customerService } from '../../machines/customerService.js';
import { scenarioMetadata, scenarios } from '../../machines/scenarios.js';
import { scriptedTurn } from './scriptedCustomerServiceModel.js';

let server: FakeOpenAIServer;
let graph: ReturnType<typeof customerService>;

beforeAll(async () => {
  server = await startFakeOpenAIServer();
  server.enqueue(...Array.from({ length: 400 }, () => scriptedTurn));
  graph = customerService({ model: new OpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test-fake', maxRetries: 0 }) });
});
afterAll(async () => {
  await server.close();
});

async function play(id: string): Promise<WorkflowRun> {
  const s = scenarios.find((x) => x.id === id)!;
  return graph.run({ input: s.message, metadata: scenarioMetadata(s) });
}

describe('customer-service scenarios through the openai SDK (fake OpenAI-compatible server)', () => {
  it('1: policy answer citing KB001', async () => {
    const run = await play('1-policy');
    expect(run.path).toEqual(['ingest', 'classify', 'retrieve', 'draft', 'review', 'finish']);
    expect(run.outputText).toContain('[KB001]');
  });

  it('2: the picture goes to the model as an image input; the answer has E02', async () => {
    const before = server.requests.length;
    const run = await play('2-vision');
    expect(run.path).toEqual(['ingest', 'vision', 'classify', 'retrieve', 'draft', 'review', 'finish']);
    expect(run.outputText).toContain('E02');
    const sent = JSON.stringify(server.requests.slice(before).map((r) => r.body));
    expect(sent).toContain('"image_url"');
    expect(JSON.stringify(Object.fromEntries(run.state))).not.toContain('base64,');
  });

  it('3: the report agent calls query_sales_report over MCP', async () => {
    const run = await play('3-report');
    expect(run.path).toEqual(['ingest', 'classify', 'report_mcp', 'draft', 'review', 'finish']);
    for (const figure of ['1,286,000', '4,268', '12.81%']) expect(run.outputText).toContain(figure);
  });

  it('4: the planner calls lookup_order, then calculate_refund, then answers 599', async () => {
    const run = await play('4-order');
    expect(run.path).toEqual(['ingest', 'classify', 'tool_plan', 'tool_execute', 'tool_plan', 'tool_execute', 'tool_plan', 'draft', 'review', 'finish']);
    expect(run.outputText).toContain('599.00 CNY');
  });

  it('5: three specialists in parallel, all through the SDK', async () => {
    const run = await play('5-multi');
    expect(run.path).toEqual(['ingest', 'classify', 'multi_plan', 'specialist', 'multi_review', 'draft', 'review', 'finish']);
    expect((run.state.get('specialistResults') as TaskResult[]).map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    for (const part of ['[KB001]', '599', '1,286,000']) expect(run.outputText).toContain(part);
  });

  it('6: a dispute waits for a person', async () => {
    const run = await play('6-human');
    expect(run.status).toBe('waiting');
    expect(run.path).toEqual(['ingest', 'classify', 'human_handoff']);
  });

  it('7 and 8: retrieval gap, tool timeout within budget, and budget spent', async () => {
    const gap = await play('7-retrieval-gap');
    expect(gap.path.filter((n) => n === 'retrieve')).toHaveLength(2);
    expect(gap.outputText).toContain('[KB001]');
    const timeout = await play('8-tool-timeout');
    expect(timeout.status).toBe('completed');
    expect((timeout.state.get('toolObservations') as Array<{ ok: boolean }>).filter((o) => !o.ok)).toHaveLength(1);
    const budget = await play('8b-tool-budget');
    expect(budget.waiting?.reason).toBe('tool loop reached budget');
    expect(server.unexpected).toBe(0);
    expect(server.requests.length).toBeGreaterThan(30);
  });
});
