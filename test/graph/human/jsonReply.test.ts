import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { END, StateGraph, humanNode, resumeRun, type AgentRequest, type AgentResult } from '../../../src/index.js';
import { memoryTarget, sqliteTarget, useStoreTarget } from '../../persistence/storeTargets.js';

const Approval = z.object({ approved: z.boolean(), amount: z.number().int().positive().max(1_000), note: z.string().default('') });

/** draft → approve (JSON reply) → finish, recording what `finish` and the router after `approve` saw. */
function approvalGraph(replyTo?: 'input' | 'state') {
  const seen: { request?: AgentRequest; lastResult?: AgentResult | null } = {};
  const graph = new StateGraph({ name: `json-approval-${replyTo ?? 'default'}` })
    .addNode('draft', () => 'refund SO1 for 599 CNY')
    .addNode('approve', humanNode({ reason: 'approve the refund', reply: Approval, replyKey: 'approval', ...(replyTo ? { replyTo } : {}) }))
    .addNode('finish', (ctx, request) => {
      seen.request = request;
      const approval = ctx.get<z.infer<typeof Approval>>('approval')!;
      return approval.approved ? `refunded ${approval.amount} (${approval.note || 'no note'})` : 'refused';
    })
    .start('draft')
    .addEdge('draft', 'approve')
    .addConditionalEdges('approve', (ctx) => {
      seen.lastResult = ctx.get<AgentResult | null>('lastResult');
      return 'finish';
    })
    .addEdge('finish', END);
  return { graph, seen };
}

describe('humanNode({ reply: schema })', () => {
  it('accepts a JSON reply matching the schema and stores its parsed value; the next node gets it as JSON text', async () => {
    const { graph, seen } = approvalGraph();
    const run = await graph.run('x');
    const done = await resumeRun(graph, run.runId, { reply: { approved: true, amount: 599 } });
    expect(done).toMatchObject({ status: 'completed', outputText: 'refunded 599 (no note)' });
    expect(done.state.get('approval')).toEqual({ approved: true, amount: 599, note: '' });
    expect(seen.request?.input).toBe('{"approved":true,"amount":599,"note":""}');
    expect(seen.lastResult).toEqual({ outputText: '{"approved":true,"amount":599,"note":""}', rawResponse: { approved: true, amount: 599, note: '' } });
  });

  it("replyTo 'state': the reply goes only to its key and the text handed to the human node flows on", async () => {
    const { graph, seen } = approvalGraph('state');
    const run = await graph.run('x');
    const done = await resumeRun(graph, run.runId, { reply: { approved: false, amount: 1 } });
    expect(done.outputText).toBe('refused');
    expect(seen.request?.input).toBe('refund SO1 for 599 CNY');
    expect(seen.lastResult).toEqual({ rawResponse: { approved: false, amount: 1, note: '' } });
  });

  it('refuses a reply that does not match, with a typed error naming the node and the field; the run still waits', async () => {
    const { graph } = approvalGraph();
    const run = await graph.run('x');
    const error = await resumeRun(graph, run.runId, { reply: { approved: 'yes', amount: 5_000 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RunStateError', code: 'invalid_reply' });
    expect((error as Error).message).toMatch(/the reply does not fit human node "approve": .*approved.*amount/);
    await expect(resumeRun(graph, run.runId, { reply: 'approved' })).rejects.toMatchObject({ code: 'invalid_reply' });
    await expect(resumeRun(graph, run.runId, { reply: { approved: true, amount: 2, when: new Date() } })).rejects.toMatchObject({ code: 'invalid_reply' });
    expect((await resumeRun(graph, run.runId, { reply: { approved: true, amount: 2 } })).status).toBe('completed');
  });

  it('keeps text replies for nodes without a schema, refusing JSON ones', async () => {
    const graph = new StateGraph({ name: 'text-only' }).addNode('ask', humanNode()).addNode('echo', (_c, r) => `got ${String(r.input)}`).start('ask').addEdge('ask', 'echo');
    const run = await graph.run('x');
    await expect(resumeRun(graph, run.runId, { reply: { ok: true } })).rejects.toMatchObject({ code: 'invalid_reply', message: expect.stringContaining('takes a text reply; received an object') });
    expect((await resumeRun(graph, run.runId, { reply: 'fine' })).outputText).toBe('got fine');
  });

  it('refuses a bad definition', () => {
    expect(() => humanNode({ reply: { parse: () => 1 } as never })).toThrow(/reply must be a zod schema/);
    expect(() => humanNode({ replyTo: 'next' as never })).toThrow(/replyTo must be 'input'/);
  });
});

describe.each([
  ['MemoryRunStore', memoryTarget],
  ['SqliteRunStore', sqliteTarget],
])('JSON replies in a stored run (%s)', (_label, makeTarget) => {
  const target = useStoreTarget(makeTarget);
  it('checks the reply against the schema and resumes with its parsed value', async () => {
    const { store } = target();
    const { graph } = approvalGraph();
    const run = await graph.run('x', { store });
    expect(run.status).toBe('waiting');
    await expect(resumeRun(graph, run.runId, { reply: { approved: true } }, { store })).rejects.toMatchObject({ code: 'invalid_reply' });
    expect((await store.getRun(run.runId))!.status).toBe('waiting');
    const done = await resumeRun(graph, run.runId, { reply: { approved: true, amount: 10, note: 'ok' } }, { store });
    expect(done.outputText).toBe('refunded 10 (ok)');
    expect(((await store.getRun(run.runId))!.snapshot as { context: { state: Record<string, unknown> } }).context.state.approval).toEqual({ approved: true, amount: 10, note: 'ok' });
  });
});
