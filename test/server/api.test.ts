import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { StateGraph } from '../../src/index.js';
import { refundApproval } from '../../machines/refundApproval.js';
import { approvalGraph, lookupLoopGraph } from '../fixtures/workbenchGraphs.js';
import { testWorkbench } from './workbenchTarget.js';

// A fixed registry, so these API tests do not change when machines/ gains graphs.
const scenarios = [{ id: 'refund-approval', title: 'Refund SO20261001 (needs approval)', message: 'Please refund order SO20261001', graph: 'refund-approval' }];
const wb = testWorkbench({ graphs: [refundApproval(), approvalGraph(), lookupLoopGraph(1)], scenarios });
afterAll(() => wb.shutdown());

// 1×1 transparent PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('workbench API', () => {
  it('starts a run, lists it with its status, gets it, resumes it once and refuses a second resume', async () => {
    const started = await wb.json('/api/runs', { method: 'POST', json: { graph: 'refund-approval', message: 'Refund SO20261001 please' } });
    expect(started.status).toBe(202);
    const { runId } = started.body as { runId: string };
    await wb.runs.drain();

    const listed = await wb.json('/api/runs?status=waiting');
    expect(listed.status).toBe(200);
    expect(listed.body.find((r: { runId: string }) => r.runId === runId)).toMatchObject({
      graph: 'refund-approval',
      status: 'waiting',
      path: ['draft', 'approve'],
      waitReason: 'approve the refund for SO20261001',
      input: 'Refund SO20261001 please',
    });

    const got = await wb.json(`/api/runs/${runId}`);
    expect(got.body).toMatchObject({ runId, status: 'waiting', waiting: { nodeId: 'approve' }, state: { order: 'SO20261001' }, live: false });

    // A JSON reply passes the body check but not this human node, which takes text: refused, nothing changes.
    const json = await wb.json(`/api/runs/${runId}/resume?wait=true`, { method: 'POST', json: { reply: { approved: true } } });
    expect(json).toMatchObject({ status: 400, body: { error: { code: 'invalid_reply' } } });
    expect(json.body.error.message).toContain('human node "approve": this node takes a text reply; received an object');

    const resumed = await wb.json(`/api/runs/${runId}/resume?wait=true`, { method: 'POST', json: { reply: 'approved' } });
    expect(resumed).toMatchObject({ status: 200, body: { runId, status: 'completed', outputText: 'Refund for SO20261001: approved' } });

    const again = await wb.json(`/api/runs/${runId}/resume`, { method: 'POST', json: { reply: 'twice' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'run_finished' });
    expect(again.body.error.message).toContain('already finished (completed)');

    const events = await wb.json(`/api/runs/${runId}/events`);
    expect(events.body.map((e: { seq: number }) => e.seq)).toEqual(events.body.map((_: unknown, i: number) => i + 1));
    expect(events.body.at(-1)).toMatchObject({ type: 'run.completed', run: { status: 'completed' } });
    expect((await wb.json(`/api/runs/${runId}/events?after=10`)).body[0].seq).toBe(11);
  });

  it('waits for the whole leg with ?wait=true and starts a scenario by id', async () => {
    const loop = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'lookup-loop', message: 'check' } });
    expect(loop.body).toMatchObject({ status: 'completed', path: ['plan', 'execute', 'plan', 'execute', 'plan', 'answer'] });

    const listed = await wb.json('/api/scenarios');
    expect(listed.body).toEqual([{ id: 'refund-approval', title: 'Refund SO20261001 (needs approval)', message: 'Please refund order SO20261001', graph: 'refund-approval', hasImage: false }]);
    const run = await wb.json('/api/scenarios/refund-approval/runs?wait=1', { method: 'POST', json: {} });
    expect(run.body).toMatchObject({ status: 'waiting', waiting: { nodeId: 'approve', reason: 'approve the refund for SO20261001' } });
    expect((await wb.json('/api/scenarios/nope/runs', { method: 'POST', json: {} })).body.error.message).toBe('no scenario "nope"; known: refund-approval');
  });

  it('cancels a waiting run and refuses to cancel it again', async () => {
    const { body } = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'approval', message: 'x' } });
    const cancelled = await wb.json(`/api/runs/${body.runId}/cancel`, { method: 'POST', json: {} });
    expect(cancelled).toMatchObject({ status: 200, body: { runId: body.runId, status: 'cancelled' } });
    const again = await wb.json(`/api/runs/${body.runId}/cancel`, { method: 'POST', json: {} });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'run_finished' } } });
    const events = (await wb.json(`/api/runs/${body.runId}/events`)).body as Array<{ type: string }>;
    expect(events.at(-1)?.type).toBe('run.cancelled');
  });

  it('describes a machine: states, hops in priority order with guard params, human nodes', async () => {
    const { status, body } = await wb.json('/api/graphs/lookup-loop/definition');
    expect(status).toBe(200);
    expect(body.initial).toBe('plan');
    expect(body.humanNodes).toEqual([]);
    const plan = body.hops.filter((h: { from: string }) => h.from === 'plan');
    expect(plan.map((h: { kind: string; to: string }) => `${h.kind}:${h.to}`)).toEqual(['fuse:maxSteps', 'route-failed:failed', 'conditional:execute', 'conditional:answer', 'end:__end__', 'node-failed:failed']);
    expect(plan[2]).toMatchObject({ guard: { type: 'routedTo', params: { entry: 0, kind: 'conditional', index: 0, to: 'execute', keys: ['tool'] } }, priority: 2, reachable: true });
    const executeEnd = body.hops.find((h: { from: string; kind: string }) => h.from === 'execute' && h.kind === 'end');
    expect(executeEnd.reachable).toBe(false);

    const approval = (await wb.json('/api/graphs/approval/definition')).body;
    expect(approval.humanNodes).toEqual(['human']);
    expect(approval.states.find((s: { nodeId: string }) => s.nodeId === 'human')).toMatchObject({ kind: 'human', states: ['waiting', 'routing'] });
    expect(approval.states.filter((s: { kind: string }) => s.kind === 'final').map((s: { key: string }) => s.key)).toEqual(['completed', 'maxSteps', 'failed', 'cancelled', 'budgetExceeded']);
    expect((await wb.json('/api/graphs')).body).toEqual({ default: 'refund-approval', graphs: [{ name: 'refund-approval', models: [] }, { name: 'approval', models: [] }, { name: 'lookup-loop', models: [] }], faults: [], models: [] });
  });

  it('answers bad bodies with 400 and a message naming each wrong field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'message: message is required'],
      [{ message: '   ' }, 'message: message must not be blank'],
      [{ message: 'hi', extra: 1 }, 'Unrecognized key: "extra"'],
      [{ message: 'hi', image: { mediaType: 'image/svg+xml', base64: PNG } }, 'image.mediaType: mediaType must be one of image/png'],
      [{ message: 'hi', image: { mediaType: 'image/png', base64: 'not base64!' } }, 'image.base64: base64 must be standard base64'],
    ];
    for (const [json, message] of cases) {
      const res = await wb.json('/api/runs', { method: 'POST', json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(res.body.error.code).toBe('bad_request');
      expect(res.body.error.message).toContain(message);
    }
    const notJson = await wb.app.request('/api/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { message: string } }).error.message).toContain('does not parse as JSON');
    const reply = await wb.json('/api/runs/x/resume', { method: 'POST', json: { reply: null } });
    expect(reply).toMatchObject({ status: 400, body: { error: { code: 'bad_request' } } });
    expect(reply.body.error.message).toContain('reply: reply is required');
    const badQuery = await wb.json('/api/runs?limit=0');
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.error.message).toContain('limit');
    const badSeq = await wb.app.request('/api/runs/x/events?after=-1');
    expect(badSeq.status).toBe(404);
  });

  it('answers unknown graphs, runs and routes with 404', async () => {
    const graph = await wb.json('/api/runs', { method: 'POST', json: { graph: 'nope', message: 'x' } });
    expect(graph).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: 'no graph named "nope" is registered; known: refund-approval, approval, lookup-loop' } } });
    expect((await wb.json('/api/runs/no-such-run')).body.error).toMatchObject({ code: 'run_not_found' });
    expect((await wb.json('/api/runs/no-such-run/stream')).status).toBe(404);
    expect((await wb.json('/api/graphs/nope/definition')).status).toBe(404);
    expect((await wb.json('/api/nothing')).body.error.message).toBe('no route GET /api/nothing');
  });

  it('passes an uploaded image to the run in memory and never stores or returns its bytes', async () => {
    const seen: unknown[] = [];
    const vision = new StateGraph({ name: 'vision' })
      .addNode('see', (ctx, request) => {
        seen.push(request.metadata?.image);
        ctx.put('described', 'an LED');
        return 'an LED';
      })
      .start('see');
    const other = testWorkbench({ graphs: [vision] });
    try {
      const form = new FormData();
      form.set('message', 'what is this?');
      form.set('image', new Blob([Buffer.from(PNG, 'base64')], { type: 'image/png' }), 'led.png');
      const res = await other.app.request('/api/runs?wait=true', { method: 'POST', headers: { 'x-switchboard-client': 'test' }, body: form });
      expect(res.status).toBe(200);
      const { runId } = (await res.json()) as { runId: string };
      const json = await other.json('/api/runs?wait=true', { method: 'POST', json: { message: 'and this?', image: { mediaType: 'image/png', base64: `data:image/png;base64,${PNG}` } } });
      expect(json.status).toBe(200);

      // The node got the bytes, in memory.
      expect(seen).toHaveLength(2);
      expect(seen[0]).toMatchObject({ mediaType: 'image/png', dataUrl: `data:image/png;base64,${PNG}`, bytes: 70, name: 'led.png' });
      expect(seen[1]).toMatchObject({ dataUrl: `data:image/png;base64,${PNG}` });

      const detail = await other.json(`/api/runs/${runId}`);
      expect(detail.body.request.metadata.image).toMatchObject({ mediaType: 'image/png', dataUrl: '[image]', bytes: 70, name: 'led.png' });
      expect(detail.body.request.metadata.image.sha256).toMatch(/^[0-9a-f]{64}$/);
      const everything = [
        JSON.stringify((await other.json(`/api/runs/${runId}/events`)).body),
        JSON.stringify((await other.json(`/api/runs/${json.body.runId}/events`)).body),
        JSON.stringify((await other.json('/api/runs')).body),
        await (await other.app.request(`/api/runs/${runId}/stream`)).text(),
      ].join('\n');
      expect(everything).toContain('"dataUrl":"[image]"');
      await other.shutdown();
      const stored = ['', '-wal'].map((s) => (existsSync(other.file + s) ? readFileSync(other.file + s).toString('latin1') : '')).join('');
      expect(stored).toContain('[image]');
      for (const text of [everything, stored]) expect(text).not.toContain(PNG.slice(0, 24));
    } finally {
      await other.shutdown();
    }
  });
});

describe('token', () => {
  const secured = testWorkbench({ graphs: [approvalGraph()], token: 'tok-0123456789abcdef' });
  afterAll(() => secured.shutdown());

  it('is required on every API route when set, as a Bearer header or ?token=', async () => {
    const missing = await secured.json('/api/runs');
    expect(missing).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    expect(missing.body.error.message).toContain('Authorization: Bearer <SWITCHBOARD_TOKEN>');
    expect(missing.body.error.message).not.toContain('tok-0123456789abcdef');
    expect((await secured.json('/api/runs', { headers: { authorization: 'Bearer wrong-token' } })).status).toBe(401);
    expect((await secured.json('/api/runs', { headers: { authorization: 'Bearer tok-0123456789abcdef' } })).status).toBe(200);
    expect((await secured.json('/api/runs?token=tok-0123456789abcdef')).status).toBe(200);
    expect((await secured.json('/api/runs', { method: 'POST', json: { message: 'x' } })).status).toBe(401);
    // The page itself holds no data and loads without it (it sends the token it was opened with).
    expect((await secured.app.request('/')).status).toBe(200);
  });
});
