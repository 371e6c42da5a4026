import { describe, expect, it } from 'vitest';
import { analyzeTransitions, END, endState, START_STATE, StateGraph, TransitionRecorder } from '../../src/index.js';
import { seededRandom as seeded } from '../support/seededRandom.js';


/**
 * classify routes to billing 50 %, tech 30 %, other 20 %; tech sends the request back to classify
 * 40 % of the time and ends otherwise; other fails 25 % of the time. By hand: ending completed
 * p = 0.5 + 0.3·(0.6 + 0.4p) + 0.2·0.75 ⇒ p = 0.83 / 0.88, failed 0.05 / 0.88; classify is visited
 * 1 / 0.88 times per run and each visit runs two nodes, so 2 / 0.88 node executions per run.
 */
function supportGraph(random: () => number) {
  return new StateGraph({ name: 'support', maxSteps: 1_000 })
    .addNode('classify', () => 'c')
    .addNode('billing', () => 'b')
    .addNode('tech', () => 't')
    .addNode('other', () => {
      if (random() < 0.25) throw new Error('the other desk is down');
      return 'o';
    })
    .start('classify')
    .addConditionalEdges('classify', () => {
      const r = random();
      return r < 0.5 ? 'billing' : r < 0.8 ? 'tech' : 'other';
    })
    .addConditionalEdges('tech', () => (random() < 0.4 ? 'again' : 'done'), { again: 'classify', done: END });
}

describe('transition estimates over many runs', () => {
  it('recover the router probabilities, end probabilities (within 3 points) and expected steps (within 3 %) of 2,000 runs', async () => {
    const graph = supportGraph(seeded(14));
    const recorder = new TransitionRecorder();
    for (let i = 0; i < 2_000; i++) await graph.run(`m${i}`, { recorders: [recorder] });
    const a = analyzeTransitions(recorder.records);
    expect(a.runs).toBe(2_000);
    const p = (from: string, to: string) => a.matrix[a.states.indexOf(from)]![a.states.indexOf(to)]!;
    const known: [string, string, number][] = [
      [START_STATE, 'classify', 1],
      ['classify', 'billing', 0.5],
      ['classify', 'tech', 0.3],
      ['classify', 'other', 0.2],
      ['tech', 'classify', 0.4],
      ['tech', endState('completed'), 0.6],
      ['billing', endState('completed'), 1],
      ['other', endState('failed'), 0.25],
      ['other', endState('completed'), 0.75],
    ];
    for (const [from, to, expected] of known) expect(Math.abs(p(from, to) - expected), `${from}→${to}: ${p(from, to)}`).toBeLessThanOrEqual(0.03);
    // Probabilities within 3 percentage points; the expected number of steps within 3 % of its value.
    const points = (value: number, expected: number) => expect(Math.abs(value - expected), `${value} vs ${expected}`).toBeLessThanOrEqual(0.03);
    const within = (value: number, expected: number) => expect(Math.abs(value - expected) / expected, `${value} vs ${expected}`).toBeLessThanOrEqual(0.03);
    points(a.endProbabilities.completed!, 0.83 / 0.88);
    points(a.endProbabilities.failed!, 0.05 / 0.88);
    within(a.expectedSteps, 2 / 0.88);
    // The chain's expectation agrees with the runs' own average (it is the same data seen two ways).
    const executions = recorder.records.filter((r) => r.from !== START_STATE).length / 2_000;
    expect(a.expectedSteps).toBeCloseTo(executions, 9);
    if (process.env.SWITCHBOARD_PRINT_ESTIMATES) process.stdout.write(`${JSON.stringify({ matrix: known.map(([f, t, e]) => [f, t, e, p(f, t)]), ends: a.endProbabilities, steps: a.expectedSteps, cycle: a.cycles[0], thrash: a.thrash.score })}\n`);
    expect(a.cycles[0]!.states).toEqual(['classify', 'tech']);
    points(a.cycles[0]!.probability, 0.3 * 0.4);
  }, 120_000);
});
