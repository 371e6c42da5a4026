import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OfflineModel, type TaskResult, type WorkflowEvent, type WorkflowRun } from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';
import { scenarioImagePath, scenarioMetadata, scenarios } from '../../machines/scenarios.js';

const graph = customerService({ model: new OfflineModel() });
const scenario = (id: string) => scenarios.find((s) => s.id === id)!;

async function play(id: string, overrides: { toolBudget?: number } = {}): Promise<{ run: WorkflowRun; events: WorkflowEvent[] }> {
  const s = { ...scenario(id), ...overrides };
  const events: WorkflowEvent[] = [];
  let run: WorkflowRun | undefined;
  for await (const event of graph.stream({ input: s.message, metadata: scenarioMetadata(s) })) {
    events.push(event);
    if (event.type === 'run.completed') run = (event as { run: WorkflowRun }).run;
  }
  return { run: run!, events };
}

describe('customer-service scenarios (offline)', () => {
  it('1: answers a policy question through retrieval, citing KB001', async () => {
    const { run } = await play('1-policy');
    expect(run.status).toBe('completed');
    expect(run.path).toEqual(['ingest', 'classify', 'retrieve', 'draft', 'review', 'finish']);
    expect(run.outputText).toContain('[KB001]');
    expect(run.outputText).toMatch(/full refund/);
  });

  it('2: reads the E02 picture before classifying and explains the fault', async () => {
    const { run, events } = await play('2-vision');
    expect(run.path).toEqual(['ingest', 'vision', 'classify', 'retrieve', 'draft', 'review', 'finish']);
    expect(run.outputText).toContain('E02');
    expect(run.outputText).toMatch(/clean the (charging )?contacts/i);
    // The picture's bytes appear nowhere: not in the state, not in any event.
    const png = readFileSync(scenarioImagePath(scenario('2-vision'))!);
    const serialized = JSON.stringify(events) + JSON.stringify(Object.fromEntries(run.state));
    expect(serialized).not.toContain(png.toString('base64').slice(0, 64));
    expect(serialized).not.toContain('\\u0089PNG');
  });

  it('3: queries the sales report over the MCP server', async () => {
    const { run, events } = await play('3-report');
    expect(run.path).toEqual(['ingest', 'classify', 'report_mcp', 'draft', 'review', 'finish']);
    for (const figure of ['1,286,000', '4,268', '12.81%']) expect(run.outputText).toContain(figure);
    expect(events.some((e) => e.type === 'mcp.tools')).toBe(true);
    expect(run.state.get('reportTools')).toEqual(expect.arrayContaining(['query_sales_report']));
  });

  it('4: looks the order up, then calculates the refund: tool_execute twice, 599', async () => {
    const { run } = await play('4-order');
    expect(run.path).toEqual(['ingest', 'classify', 'tool_plan', 'tool_execute', 'tool_plan', 'tool_execute', 'tool_plan', 'draft', 'review', 'finish']);
    const calls = (run.state.get('toolObservations') as Array<{ name: string; ok: boolean }>).map((o) => [o.name, o.ok]);
    expect(calls).toEqual([['lookup_order', true], ['calculate_refund', true]]);
    expect(run.outputText).toContain('599');
    expect(run.outputText).toMatch(/estimate/i);
  });

  it('5: runs three specialists in parallel and answers all three parts', async () => {
    const { run, events } = await play('5-multi');
    expect(run.path).toEqual(['ingest', 'classify', 'multi_plan', 'specialist', 'multi_review', 'draft', 'review', 'finish']);
    const results = run.state.get('specialistResults') as TaskResult[];
    expect(results.map((r) => [r.kind, r.status])).toEqual([['rag', 'completed'], ['tool', 'completed'], ['report', 'completed']]);
    expect(run.outputText).toContain('[KB001]');
    expect(run.outputText).toContain('599');
    expect(run.outputText).toContain('1,286,000');
    // Overlapping spans: every specialist started before the first one finished.
    const starts = events.filter((e) => e.type === 'run.started' && e.path !== 'root');
    expect(starts.map((e) => e.path)).toEqual(expect.arrayContaining(['root/rag[1]', 'root/tool[2]', 'root/report[3]']));
    const firstDone = events.findIndex((e) => e.type === 'specialist.completed');
    expect(Math.max(...starts.map((e) => events.indexOf(e)))).toBeLessThan(firstDone);
    const dispatchSpan = events.find((e) => e.type === 'node.started' && e.nodeId === 'specialist')!.spanId;
    expect(starts.every((e) => e.parentSpanId === dispatchSpan && e.traceId === events[0]!.traceId)).toBe(true);
    // Each specialist ran with its own session and state: only the whitelisted keys crossed over.
    const toolEvents = events.filter((e) => e.path === 'root/tool[2]' && e.type === 'node.started');
    expect(toolEvents.length).toBeGreaterThan(0);
    expect(results[1]!.output).not.toHaveProperty('passages');
  });

  it('6: hands a dispute to a person and waits', async () => {
    const { run } = await play('6-human');
    expect(run.status).toBe('waiting');
    expect(run.path).toEqual(['ingest', 'classify', 'human_handoff']);
    expect(run.waiting?.nodeId).toBe('human_handoff');
  });

  it('7: recovers from a retrieval gap with one requery and a changed query', async () => {
    const { run } = await play('7-retrieval-gap');
    expect(run.status).toBe('completed');
    expect(run.path.filter((n) => n === 'retrieve')).toHaveLength(2);
    expect(run.path.filter((n) => n === 'requery')).toHaveLength(1);
    const queries = run.state.get('retrievalQueries') as string[];
    expect(queries).toHaveLength(2);
    expect(queries[1]).not.toBe(queries[0]);
    expect(run.outputText).toContain('[KB001]');
  });

  it('8: survives a tool timeout within budget 3, and hands off at budget 2', async () => {
    const { run } = await play('8-tool-timeout');
    expect(run.status).toBe('completed');
    const observations = run.state.get('toolObservations') as Array<{ ok: boolean; code?: string }>;
    expect(observations.filter((o) => !o.ok)).toEqual([expect.objectContaining({ ok: false, code: 'tool_timeout' })]);
    expect(run.outputText).toContain('599');

    const tight = await play('8b-tool-budget');
    expect(tight.run.status).toBe('waiting');
    expect(tight.run.path.at(-1)).toBe('human_handoff');
    expect(tight.run.waiting?.reason).toBe('tool loop reached budget');
  });

  it('answers "hello" through general → draft with no tool', async () => {
    const run = await graph.run('hello');
    expect(run.path).toEqual(['ingest', 'classify', 'draft', 'review', 'finish']);
    expect(run.state.has('toolObservations')).toBe(false);
    expect(run.outputText).toMatch(/help/);
  });

  it.each([
    ['SO20261001', '599.00'],
    ['SO20261002', '764.15'],
    ['SO20261003', '349.00'],
    ['SO20261004', '0.00'],
    ['SO20261005', '129.00'],
  ])('estimates the refund of %s as its rule says (%s CNY)', async (order, amount) => {
    const run = await graph.run(`Check order ${order} for me and see how much can still be refunded.`);
    expect(run.status).toBe('completed');
    expect(run.outputText).toContain(`${amount} CNY`);
  });

  it('asks for the order number and calls no tool when there is none', async () => {
    const run = await graph.run('How much of my order can still be refunded?');
    expect(run.state.get('toolObservations') ?? []).toEqual([]);
    expect(run.outputText).toMatch(/order number/i);
  });

  it('sends a request it is unsure about to a person', async () => {
    const run = await graph.run('asdf qwerty zxcv');
    expect(run.status).toBe('waiting');
    expect(run.path).toEqual(['ingest', 'classify', 'human_handoff']);
  });

  it('never lets state leak between runs of the same graph', async () => {
    await graph.run(scenario('4-order').message);
    const next = await graph.run(scenario('1-policy').message);
    expect(next.state.has('toolObservations')).toBe(false);
    expect(next.state.has('pendingToolCall')).toBe(false);
  });
});
