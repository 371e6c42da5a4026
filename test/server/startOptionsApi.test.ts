import { afterAll, describe, expect, it } from 'vitest';
import { ErrorJson, RunDetailJson } from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';
import { faults } from '../../machines/index.js';
import { lookupLoopGraph } from '../fixtures/workbenchGraphs.js';
import { testWorkbench } from './workbenchTarget.js';

const RETURN_QUESTION = 'What is the return policy for Aero headphones? Can I return them unused three days after delivery?';
const wb = testWorkbench({ graphs: [customerService(), lookupLoopGraph(1)], faults });
const bare = testWorkbench({ graphs: [lookupLoopGraph(1)] });
afterAll(async () => {
  await wb.shutdown();
  await bare.shutdown();
});

describe('POST /api/runs run options', () => {
  it('lists the faults a start may inject beside the graphs', async () => {
    expect((await wb.json('/api/graphs')).body).toMatchObject({ default: 'customer-service', faults: ['retrieval_gap', 'tool_timeout', 'review_rework'] });
    expect((await bare.json('/api/graphs')).body.faults).toEqual([]);
  });

  it('injects the chosen faults as the CLI --fault does: a retrieval gap makes the run query again', async () => {
    const plain = await wb.json('/api/runs?wait=true', { method: 'POST', json: { message: RETURN_QUESTION } });
    const faulted = await wb.json('/api/runs?wait=true', { method: 'POST', json: { message: RETURN_QUESTION, faults: ['retrieval_gap', 'retrieval_gap'] } });
    expect(plain.body.path).not.toContain('requery');
    expect(faulted.body.path).toContain('requery');
    const detail = RunDetailJson.parse((await wb.json(`/api/runs/${faulted.body.runId}`)).body);
    expect(detail.state['faults']).toEqual(['retrieval_gap']);
  });

  it('refuses a fault the graphs do not declare, naming the known ones, and stores nothing', async () => {
    const before = (await wb.json('/api/runs?limit=500')).body.length;
    for (const [server, known] of [
      [wb, 'retrieval_gap, tool_timeout, review_rework'],
      [bare, 'none'],
    ] as const) {
      const refused = await server.json('/api/runs', { method: 'POST', json: { message: 'hi', faults: ['disk_full'] } });
      expect(refused.status).toBe(400);
      const error = ErrorJson.parse(refused.body).error;
      expect(error.code).toBe('bad_request');
      expect(error.message).toContain('unknown fault "disk_full"; known faults: ' + known);
    }
    const notAList = await wb.json('/api/runs', { method: 'POST', json: { message: 'hi', faults: 'retrieval_gap' } });
    expect(notAList.status).toBe(400);
    expect((await wb.json('/api/runs?limit=500')).body.length).toBe(before);
  });

  it('ends a run over its step budget budget-exceeded, with a budget given as digits as a form sends it', async () => {
    const run = await wb.json('/api/runs?wait=true', { method: 'POST', json: { graph: 'lookup-loop', message: 'check', budget: { maxIterations: '2' } } });
    expect(run.body).toMatchObject({ status: 'budget-exceeded', path: ['plan', 'execute'] });
  });
});
