import { describe, expect, it } from 'vitest';
import { END, StateGraph, type BudgetOptions, type WorkflowContext } from '../../src/index.js';
import { promisesDuring } from '../support/promisesDuring.js';

const STEPS = 200;
const loop = () =>
  new StateGraph({ name: 'promise-count', maxSteps: STEPS + 1 })
    .addNode('inc', (ctx: WorkflowContext) => {
      ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
      return null;
    })
    .start('inc')
    .addConditionalEdges('inc', (ctx) => ((ctx.get<number>('n') ?? 0) >= STEPS ? END : 'inc'));

const BUDGET: BudgetOptions = { maxCost: 1_000, maxTokens: 1e12, maxIterations: 1e9, maxDuration: 2_000_000_000 };

describe('promises per step', () => {
  it('a loop of synchronous nodes makes one promise per step, with a budget or without', async () => {
    const graph = loop();
    for (const options of [{}, { budget: BUDGET }]) {
      const promises = await promisesDuring(async () => {
        const run = await graph.run('go', options);
        expect(run.status).toBe('completed');
        expect(run.steps).toBe(STEPS);
      });
      // One per step (the barrier's), plus a few for the run's start and end.
      expect(promises).toBeGreaterThanOrEqual(STEPS);
      expect(promises).toBeLessThan(STEPS + 20);
    }
  });

  it('a synchronous node that throws still fails its step, and an async one is awaited', async () => {
    const failing = new StateGraph({ name: 'throws' })
      .addNode('boom', () => {
        throw new Error('sync boom');
      })
      .start('boom')
      .addEdge('boom', END);
    const failed = await failing.run('go');
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toContain('sync boom');
    const later = new StateGraph({ name: 'async' })
      .addNode('wait', async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return 'done';
      })
      .start('wait')
      .addEdge('wait', END);
    const run = await later.run('go');
    expect(run.status).toBe('completed');
    expect(run.outputText).toBe('done');
  });
});
