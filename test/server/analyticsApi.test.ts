import { afterAll, describe, expect, it } from 'vitest';
import { END, StateGraph } from '../../src/index.js';
import { loopingSpecialist } from '../support/loopingSpecialist.js';
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

  it('says which states and runs it cannot analyse while the only runs through a loop are still going round it (409, not 500)', async () => {
    let release: () => void = () => {};
    let inLoop: () => void = () => {};
    const looping = new Promise<void>((resolve) => (inLoop = resolve));
    let visits = 0;
    const graph = new StateGraph({ name: 'loop' })
      .addNode('plan', () => 'plan')
      .addNode('act', () => {
        visits += 1;
        if (visits < 2) return 'again';
        inLoop();
        return new Promise<string>((resolve) => (release = () => resolve('done')));
      })
      .start('plan')
      .addEdge('plan', 'act')
      .addConditionalEdges('act', () => (visits < 3 ? 'again' : 'done'), { again: 'plan', done: END });
    const wb = testWorkbench({ graphs: [graph] });
    made.push(wb);
    const running = graph.run('go', { store: wb.store, runId: 'round-1' });
    await looping;
    // The run's events reach the store after the step that made them: wait for the second hop into act.
    const hopsIn = async () => (await wb.store.listEvents('round-1', {})).filter((e) => e.type === 'node.started').length;
    while ((await hopsIn()) < 4) await new Promise((resolve) => setImmediate(resolve));
    const got = await wb.json('/api/graphs/loop/analytics');
    expect(got.status).toBe(409);
    expect(got.body.error.code).toBe('chain_not_absorbing');
    expect(got.body.error.message).toContain('"plan", "act"');
    expect(got.body.error.message).toContain('"round-1"');
    visits = 3;
    release();
    expect((await running).status).toBe('completed');
    const after = await wb.json('/api/graphs/loop/analytics');
    expect(after.status).toBe(200);
    expect(after.body.analyses.loop.endProbabilities).toEqual({ completed: 1 });
  });

  it('answers for the graph while a specialist it ran is still going round a loop, naming that specialist in errors', async () => {
    const { desk, inLoop, release } = loopingSpecialist();
    const wb = testWorkbench({ graphs: [desk] });
    made.push(wb);
    const running = desk.run('go', { store: wb.store, runId: 'd-1' });
    await inLoop(wb.store, 'd-1');
    const got = await wb.json('/api/graphs/desk/analytics');
    expect(got.status).toBe(200);
    expect(Object.keys(got.body.analyses)).toEqual(['desk']);
    expect(got.body.analyses.desk.transitions).toBe(2);
    expect(got.body.errors.tool.code).toBe('chain_not_absorbing');
    expect(got.body.errors.tool.message).toContain('"d-1/tool[1]"');
    release();
    expect((await running).status).toBe('completed');
    const after = await wb.json('/api/graphs/desk/analytics');
    expect(Object.keys(after.body.analyses)).toEqual(['desk', 'tool']);
    expect(after.body.errors).toBeUndefined();
  });

  it('analyses a registered graph that has run only as a specialist from the runs that started it', async () => {
    const { desk, tool, release } = loopingSpecialist();
    const wb = testWorkbench({ graphs: [desk, tool] });
    made.push(wb);
    const running = desk.run('go', { store: wb.store, runId: 'd-3' });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect((await running).status).toBe('completed');
    const got = await wb.json('/api/graphs/tool/analytics');
    expect(got.status).toBe(200);
    expect(Object.keys(got.body.analyses)).toEqual(['tool']);
    expect(got.body.analyses.tool).toMatchObject({ runs: 1, transitions: 5, endProbabilities: { completed: 1 } });
  });
});
