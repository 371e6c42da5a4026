import { describe, expect, it } from 'vitest';
import { Workflow, step, type BudgetOptions } from '../../src/index.js';
import { promisesDuring } from '../support/promisesDuring.js';

const PASSES = 100;
const BUDGET: BudgetOptions = { maxCost: 1_000, maxTokens: 1e12, maxIterations: 1e9, maxDuration: 2_000_000_000 };

describe('promises per workflow step', () => {
  it('a loop of synchronous steps and a synchronous check makes one promise per step, with a budget or without', async () => {
    const flow = Workflow.define<number>('sync-loop').repeatUntil((_c, n) => n >= PASSES).step(step('inc', (_c, n: number) => n + 1)).end();
    for (const budget of [undefined, BUDGET]) {
      const promises = await promisesDuring(async () => {
        const run = await flow.run(0, { maxIterations: PASSES * 2, ...(budget === undefined ? {} : { budget }) });
        expect(run.status).toBe('completed');
        expect(run.output).toBe(PASSES);
      });
      // Two steps per pass (the check and the body), one promise each, plus a few for the run's start and end.
      expect(promises).toBeGreaterThanOrEqual(2 * PASSES);
      expect(promises).toBeLessThan(2 * PASSES + 30);
    }
  });

  it('awaits asynchronous steps and checks, and routes an asynchronous failure to its handler', async () => {
    const flow = Workflow.define<number>('async-loop')
      .repeatUntil(async (_c, n) => n >= 3)
      .step(step('inc', async (_c, n: number) => n + 1))
      .end()
      .then(
        step('fail', async (_c, _n: number): Promise<number> => {
          throw new RangeError('too far');
        }),
      )
      .onError(RangeError, step('recover', (_c, n: number) => n * 10));
    const run = await flow.run(0);
    expect(run.status).toBe('completed');
    expect(run.output).toBe(30);
    const unhandled = await Workflow.define<number>('async-fail')
      .step(step('fail', async (): Promise<number> => {
        throw new Error('not handled');
      }))
      .run(0);
    expect(unhandled.status).toBe('failed');
    expect(unhandled.error?.message).toContain('not handled');
  });
});
