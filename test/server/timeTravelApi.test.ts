import { afterAll, describe, expect, it } from 'vitest';
import { ErrorJson, RunDetailJson, RunJson, RunStateJson, RunSummaryJson } from '../../src/index.js';
import { graphs } from '../fixtures/timeTravelGraphs.js';
import { testWorkbench } from './workbenchTarget.js';

const wb = testWorkbench({ graphs, scenarios: [] });
afterAll(() => wb.shutdown());

describe('time travel over HTTP', () => {
  it('answers the state at a step, forks with and without an edited state, and names the parent in run JSON', async () => {
    const started = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'tally', message: 'x' } });
    expect(started.body).toMatchObject({ status: 'completed', outputText: 'small 2 after counted x' });
    const runId = started.body.runId as string;

    const at2 = await wb.json(`/api/runs/${runId}/state?at=2`);
    expect(at2.status).toBe(200);
    expect(RunStateJson.parse(at2.body)).toMatchObject({ runId, step: 2, lastStep: 3, nodeId: 'double', nextNodeId: 'small', state: { n: 2 } });
    expect((await wb.json(`/api/runs/${runId}/state`)).body).toMatchObject({ step: 3, nodeId: 'small' });

    const same = await wb.json(`/api/runs/${runId}/fork?wait=true`, { method: 'POST', json: { at: 1 } });
    expect(same.status).toBe(200);
    expect(RunJson.parse(same.body)).toMatchObject({ status: 'completed', outputText: 'small 2 after counted x', parentRunId: runId, forkedAt: 1 });

    const edited = await wb.json(`/api/runs/${runId}/fork`, { method: 'POST', json: { at: 2, state: { ...at2.body.state, n: 30 } } });
    expect(edited.status).toBe(202);
    await wb.runs.drain();
    const detail = await wb.json(`/api/runs/${edited.body.runId}`);
    expect(RunDetailJson.parse(detail.body)).toMatchObject({ status: 'completed', outputText: 'big 30 after counted x', parentRunId: runId, forkedAt: 2 });
    const listed = (await wb.json('/api/runs')).body as RunSummaryJson[];
    expect(listed.find((r) => r.runId === runId)).toMatchObject({ parentRunId: null, forkedAt: null });
    expect(listed.find((r) => r.runId === edited.body.runId)).toMatchObject({ parentRunId: runId, forkedAt: 2 });
  });

  it('refuses a step out of range, a wrong state type naming the key, a bad body and an unknown run', async () => {
    const started = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'tally', message: 'x' } });
    const runId = started.body.runId as string;
    const cases: [string, RequestInit & { json?: unknown }, number, string][] = [
      [`/api/runs/${runId}/state?at=4`, {}, 400, 'step_out_of_range'],
      [`/api/runs/${runId}/state?at=two`, {}, 400, 'bad_request'],
      ['/api/runs/nope/state?at=0', {}, 404, 'run_not_found'],
      [`/api/runs/${runId}/fork`, { method: 'POST', json: { at: 9 } }, 400, 'step_out_of_range'],
      [`/api/runs/${runId}/fork`, { method: 'POST', json: { at: 1, state: { n: 'ten' } } }, 400, 'state_invalid'],
      [`/api/runs/${runId}/fork`, { method: 'POST', json: { at: 1, state: { shade: 1 } } }, 400, 'state_undeclared'],
      [`/api/runs/${runId}/fork`, { method: 'POST', json: { state: {} } }, 400, 'bad_request'],
      ['/api/runs/nope/fork', { method: 'POST', json: { at: 0 } }, 404, 'run_not_found'],
    ];
    const before = ((await wb.json('/api/runs')).body as unknown[]).length;
    for (const [path, init, status, code] of cases) {
      const res = await wb.json(path, init);
      expect(res.status, path).toBe(status);
      expect(ErrorJson.parse(res.body).error.code, path).toBe(code);
    }
    const bad = await wb.json(`/api/runs/${runId}/fork`, { method: 'POST', json: { at: 1, state: { n: 'ten' } } });
    expect(bad.body.error.message).toContain('"n"');
    expect(((await wb.json('/api/runs')).body as unknown[]).length).toBe(before);
  });

  it('starts a run with breakpoints, lets it go on with an empty resume, and refuses a breakpoint naming no node', async () => {
    const bad = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'tally', message: 'x', breakpoints: { before: ['nope'] } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_breakpoint');
    const paused = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'tally', message: 'x', breakpoints: { after: ['count'] } } });
    expect(paused.body).toMatchObject({ status: 'waiting', waiting: { nodeId: 'double', breakpoint: 'after' } });
    const done = await wb.json(`/api/runs/${paused.body.runId}/resume?wait=true`, { method: 'POST', json: {} });
    expect(done.body).toMatchObject({ status: 'completed', outputText: 'small 2 after counted x' });
    const events = (await wb.json(`/api/runs/${paused.body.runId}/events`)).body as { type: string; breakpoint?: string; cause?: string }[];
    expect(events.find((e) => e.type === 'run.waiting')).toMatchObject({ breakpoint: 'after' });
    expect(events.find((e) => e.type === 'run.resumed')).toMatchObject({ cause: 'breakpoint' });
  });
});
