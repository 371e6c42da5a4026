import { afterAll, describe, expect, it } from 'vitest';
import { END, StateGraph } from '../../src/index.js';
import { testWorkbench, type TestWorkbench } from './workbenchTarget.js';

const made: TestWorkbench[] = [];
afterAll(async () => {
  for (const wb of made) await wb.shutdown();
});

describe('GET /api/graphs/:name/analytics', () => {
  it('answers for graphs named __proto__ and constructor under their own names', async () => {
    const named = (name: string) => new StateGraph({ name }).addNode('echo', (_ctx, request) => String(request.input)).start('echo');
    const wb = testWorkbench({ graphs: [named('__proto__'), named('constructor')] });
    made.push(wb);
    for (const name of ['__proto__', 'constructor']) {
      await named(name).run('hi', { store: wb.store });
      const got = await wb.json(`/api/graphs/${name}/analytics`);
      expect(got.status).toBe(200);
      expect(got.body.graph).toBe(name);
      expect(Object.keys(got.body.analyses)).toEqual([name]);
      expect(got.body.analyses[name].runs).toBe(1);
      expect(got.body.analyses[name].endProbabilities).toEqual({ completed: 1 });
    }
  });
});
