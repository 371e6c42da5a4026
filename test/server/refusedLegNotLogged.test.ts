import { afterAll, describe, expect, it } from 'vitest';
import { lookupLoopGraph } from '../fixtures/workbenchGraphs.js';
import { testWorkbench } from './workbenchTarget.js';

const logged: string[] = [];
const wb = testWorkbench({ graphs: [lookupLoopGraph(1)], log: (line) => logged.push(line) });
afterAll(() => wb.shutdown());

describe('a start, fork or resume the run refuses (a 4xx)', () => {
  it('is answered with its typed error and is not logged as a run that stopped on an error', async () => {
    const parent = await wb.json('/api/runs?wait=true', { method: 'POST', json: { message: 'go' } });
    expect(parent.status).toBeLessThan(300);
    const runId = (parent.body as { runId: string }).runId;
    logged.length = 0;
    // A state that is not JSON-shaped for the graph's state (a key's value nested past what a run keeps).
    const deep = JSON.parse('{"a":'.repeat(1500) + '1' + '}'.repeat(1500));
    const refusals = [
      await wb.json(`/api/runs/${runId}/fork`, { method: 'POST', json: { at: 99 } }),
      await wb.json(`/api/runs/${runId}/fork`, { method: 'POST', json: { at: 1, state: { n: deep } } }),
    ];
    for (const res of refusals) {
      expect(res.status, JSON.stringify(res.body).slice(0, 200)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    // Let any leg settle: a refusal is the caller's to fix, not a server failure to log.
    await new Promise((resolve) => setImmediate(resolve));
    expect(logged).toEqual([]);
  });
});
