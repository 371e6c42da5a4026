import { afterAll, describe, expect, it } from 'vitest';
import { graphs } from '../fixtures/workflowGraphs.js';
import { testWorkbench } from './workbenchTarget.js';

const wb = testWorkbench({ graphs: [...graphs], scenarios: [] });
afterAll(() => wb.shutdown());

describe('workbench API for a typed workflow run', () => {
  it('lists and gets a stored workflow run with its path as step names (no engine ids), waiting and finished', async () => {
    const started = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'review', message: 'the plan' } });
    expect(started.body).toMatchObject({ status: 'waiting', path: ['draft', 'spell', 'facts'] });
    const { runId } = started.body as { runId: string };

    const listed = await wb.json('/api/runs?status=waiting');
    expect(listed.body.find((r: { runId: string }) => r.runId === runId)).toMatchObject({ graph: 'review', path: ['draft', 'spell', 'facts'] });
    expect((await wb.json(`/api/runs/${runId}`)).body).toMatchObject({ status: 'waiting', path: ['draft', 'spell', 'facts'], waiting: { nodeId: 'approval:person' } });

    const done = await wb.json(`/api/runs/${runId}/resume?wait=true`, { method: 'POST', json: { reply: 'PASS' } });
    expect(done.body).toMatchObject({ status: 'completed', outputText: 'published draft of the plan' });
    expect((await wb.json(`/api/runs/${runId}`)).body).toMatchObject({ status: 'completed', path: ['draft', 'spell', 'facts', 'publish'] });
  });
});
