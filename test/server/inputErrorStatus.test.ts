import { afterAll, describe, expect, it } from 'vitest';
import { ErrorJson, InputError } from '../../src/index.js';
import { lookupLoopGraph } from '../fixtures/workbenchGraphs.js';
import { testWorkbench } from './workbenchTarget.js';

const logged: string[] = [];
const wb = testWorkbench({ graphs: [lookupLoopGraph(1)], log: (line) => logged.push(line) });
afterAll(() => wb.shutdown());

describe('an InputError inside a route', () => {
  it('is answered 400 with its typed error JSON and is not logged as a server failure', async () => {
    // A route added to the workbench's app, as an embedding server adds its own, that refuses its input.
    wb.app.post('/api/custom/check', () => {
      throw new InputError('check: the limit must be a whole number from 1 to 500; received "lots"');
    });
    const res = await wb.json('/api/custom/check', { method: 'POST', json: { limit: 'lots' } });
    expect(res.status).toBe(400);
    expect(ErrorJson.parse(res.body).error).toEqual({ code: 'invalid_input', message: 'check: the limit must be a whole number from 1 to 500; received "lots"' });
    expect(logged).toEqual([]);
  });
});
