import { describe, expect, it } from 'vitest';
import { END, StateGraph, type WorkflowContext } from '../../src/index.js';

/** A clock that counts its readings (1 ms apart). */
class CountingClock {
  readings = 0;
  t = 0;
  now = (): number => {
    this.readings += 1;
    return (this.t += 1);
  };
}

const STEPS = 30;
const loop = () =>
  new StateGraph({ name: 'budget-clock', maxSteps: STEPS + 1 })
    .addNode('inc', (ctx: WorkflowContext) => {
      ctx.put('n', (ctx.get<number>('n') ?? 0) + 1);
      return null;
    })
    .start('inc')
    .addConditionalEdges('inc', (ctx) => ((ctx.get<number>('n') ?? 0) >= STEPS ? END : 'inc'));

describe('the duration budget shares the step clock reading', () => {
  it('a loop with maxDuration reads the clock about as often as one without: no reading of its own per step', async () => {
    const plain = new CountingClock();
    await loop().run('go', { clock: plain });
    const timed = new CountingClock();
    const run = await loop().run('go', { clock: timed, budget: { maxDuration: 1e9 } });
    expect(run.status).toBe('completed');
    expect(run.steps).toBe(STEPS);
    // The leg's start, its end and the snapshot of what was spent: a few readings per run, not one per step.
    expect(timed.readings - plain.readings).toBeLessThan(STEPS / 2);
  });
});
