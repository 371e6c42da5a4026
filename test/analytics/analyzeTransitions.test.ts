import { describe, expect, it } from 'vitest';
import { AnalyticsError, analysisToMermaid, analyzeTransitions, endState, solveLinear, START_STATE, type TransitionRecord } from '../../src/index.js';

/** Records of one run going through `states` (the start first, an end state last). */
function run(runId: string, ...states: string[]): TransitionRecord[] {
  return states.slice(1).map((to, i) => ({ runId, workflow: 'w', from: states[i]!, to, at: i, durationMs: 10, tokens: 5, nodeType: i === 0 ? 'start' : 'node', label: 'x' }));
}

const S = START_STATE;
const DONE = endState('completed');
const FAIL = endState('failed');

/**
 * Three runs whose counts are A→B 3, A→completed 1, A→failed 1, B→A 2, B→completed 1, so
 * P(A→B) = 0.6, P(A→done) = P(A→fail) = 0.2, P(B→A) = 2/3, P(B→done) = 1/3. By hand:
 * absorption a_c = 0.2 + 0.6 b_c, b_c = 1/3 + 2/3 a_c ⇒ a_c = 2/3, b_c = 7/9 (a_f = 1/3, b_f = 2/9);
 * steps t_A = 1 + 0.6 t_B, t_B = 1 + 2/3 t_A ⇒ t_A = 8/3, t_B = 25/9, t_S = 11/3;
 * N_AA = N_BB = 1/(1 − 0.4) = 5/3, N_AB = 0.6·5/3 = 1, N_BA = 2/3·5/3 = 10/9.
 */
const chain = [...run('r1', S, 'A', 'B', 'A', 'B', 'A', DONE), ...run('r2', S, 'A', FAIL), ...run('r3', S, 'A', 'B', DONE)];

describe('analyzeTransitions', () => {
  it('estimates the matrix, absorbing probabilities and expected steps of a hand-made chain to 1e-9', () => {
    const a = analyzeTransitions(chain);
    expect(a.states).toEqual([S, 'A', 'B', DONE, FAIL]);
    expect(a.transient).toEqual([S, 'A', 'B']);
    expect(a.absorbing).toEqual([DONE, FAIL]);
    const expected = [
      [0, 1, 0, 0, 0],
      [0, 0, 0.6, 0.2, 0.2],
      [0, 2 / 3, 0, 1 / 3, 0],
      [0, 0, 0, 1, 0],
      [0, 0, 0, 0, 1],
    ];
    a.matrix.forEach((row, i) => row.forEach((p, j) => expect(Math.abs(p - expected[i]![j]!)).toBeLessThan(1e-9)));
    const near = (x: number | undefined, y: number) => expect(Math.abs((x ?? NaN) - y)).toBeLessThan(1e-9);
    near(a.absorption.A!.completed, 2 / 3);
    near(a.absorption.A!.failed, 1 / 3);
    near(a.absorption.B!.completed, 7 / 9);
    near(a.absorption.B!.failed, 2 / 9);
    near(a.endProbabilities.completed, 2 / 3);
    near(a.endProbabilities.failed, 1 / 3);
    near(a.stepsToEnd.A, 8 / 3);
    near(a.stepsToEnd.B, 25 / 9);
    near(a.stepsToEnd[S], 11 / 3);
    near(a.expectedSteps, 8 / 3);
    const n = [
      [1, 5 / 3, 1],
      [0, 5 / 3, 1],
      [0, 10 / 9, 5 / 3],
    ];
    a.fundamental.forEach((row, i) => row.forEach((v, j) => near(v, n[i]![j]!)));
    expect(a.runs).toBe(3);
    expect(a.transitions).toBe(11);
    expect(a.stats.A).toEqual({ visits: 5, meanDurationMs: 10, tokens: 25 });
  });

  it('scores thrash as the share of A→B→A moves and ranks the loops runs went round', () => {
    const a = analyzeTransitions(chain);
    // r1 S A B A B A done: ABA, BAB, ABA of 5 windows; r2: 1 window; r3: 2 windows.
    expect(a.thrash).toEqual({ score: 3 / 8, moves: 3, windows: 8, pairs: [{ from: 'A', to: 'B', count: 2 }, { from: 'B', to: 'A', count: 1 }] });
    expect(a.cycles).toHaveLength(1);
    expect(a.cycles[0]!.states).toEqual(['A', 'B']);
    expect(a.cycles[0]!.count).toBe(3);
    expect(a.cycles[0]!.runs).toBe(1);
    expect(Math.abs(a.cycles[0]!.probability - 0.4)).toBeLessThan(1e-12);
  });

  it('gives the same answers whatever order the runs come in', () => {
    const reordered = [...run('r3', S, 'A', 'B', DONE), ...run('r2', S, 'A', FAIL), ...run('r1', S, 'A', 'B', 'A', 'B', 'A', DONE)];
    const a = analyzeTransitions(chain);
    const b = analyzeTransitions(reordered);
    expect(b.endProbabilities.completed).toBeCloseTo(a.endProbabilities.completed!, 12);
    expect(b.expectedSteps).toBeCloseTo(a.expectedSteps, 12);
    expect(b.thrash.score).toBe(a.thrash.score);
  });

  it('counts a run that waited and went on once, without its wait', () => {
    const waited = [...run('w', S, 'ask', endState('waiting')), ...run('w', 'ask', 'answer', DONE).map((r) => ({ ...r, at: r.at + 10 }))];
    const a = analyzeTransitions(waited);
    expect(a.states).toEqual([S, 'ask', 'answer', DONE]);
    expect(a.endProbabilities).toEqual({ completed: 1 });
    expect(a.expectedSteps).toBeCloseTo(2, 12);
    // A run still waiting ends there.
    expect(analyzeTransitions(run('x', S, 'ask', endState('waiting'))).endProbabilities).toEqual({ waiting: 1 });
  });

  it('treats a node no run has left yet (a run still going) as where runs end', () => {
    const a = analyzeTransitions([...run('a', S, 'A', DONE), ...run('b', S, 'A', 'B')]);
    expect(a.absorbing).toEqual([DONE, 'B']);
    expect(a.endProbabilities).toEqual({ completed: 0.5, B: 0.5 });
  });

  it('refuses a record that is not one, and a chain that never ends', () => {
    const bad = [{ ...run('r', S, 'A')[0]!, durationMs: -1 }];
    expect(() => analyzeTransitions(bad)).toThrowError(AnalyticsError);
    expect(() => analyzeTransitions(bad)).toThrowError(/record 0 .*durationMs/);
    expect(() => analyzeTransitions([{ runId: 'r' } as unknown as TransitionRecord])).toThrowError(expect.objectContaining({ code: 'invalid_transition_record' }));
    expect(() => analyzeTransitions('nope' as unknown as TransitionRecord[])).toThrowError(expect.objectContaining({ code: 'invalid_transition_record' }));
    const loop = run('l', S, 'A', 'B', 'A', 'B');
    expect(() => analyzeTransitions(loop)).toThrowError(expect.objectContaining({ code: 'chain_not_absorbing' }));
  });

  it('keeps states named __proto__ and constructor (records read from a file) as states of their own', () => {
    const a = analyzeTransitions([...run('p', S, '__proto__', 'constructor', DONE), ...run('q', S, '__proto__', FAIL)]);
    expect(Object.keys(a.stats)).toEqual([S, '__proto__', 'constructor', DONE, FAIL]);
    expect(Object.hasOwn(a.stats, '__proto__')).toBe(true);
    expect(a.stats['__proto__']).toEqual({ visits: 2, meanDurationMs: 10, tokens: 10 });
    expect(Object.getPrototypeOf(a.stats)).toBe(Object.prototype);
    expect(Object.keys(a.stepsToEnd)).toEqual([S, '__proto__', 'constructor']);
    expect(a.stepsToEnd['__proto__']).toBeCloseTo(1.5, 12);
    expect(Object.keys(a.absorption)).toEqual([S, '__proto__', 'constructor']);
    expect(a.absorption['__proto__']).toEqual({ completed: 0.5, failed: 0.5 });
    // What JSON (the CLI's --json, the workbench's API) carries.
    const json = JSON.parse(JSON.stringify(a)) as typeof a;
    expect(json.stats['__proto__']!.visits).toBe(2);
    expect(json.absorption['__proto__']).toEqual({ completed: 0.5, failed: 0.5 });
  });

  it('names the states no run has left for an end, and the runs in them, when the chain never ends', () => {
    // A run going round A ↔ B (still going, or its last lines lost) while another has ended.
    const records = [...run('done-1', S, 'C', DONE), ...run('looping-7', S, 'A', 'B', 'A', 'B')];
    let error: unknown;
    try {
      analyzeTransitions(records);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AnalyticsError);
    expect(error).toMatchObject({ code: 'chain_not_absorbing' });
    const message = (error as Error).message;
    expect(message).toContain('"A", "B"');
    expect(message).toContain('"looping-7"');
    expect(message).not.toContain('done-1');
    expect(message).toMatch(/once they have ended|leave .* out/);
  });

  it('analyses no records as an empty chain', () => {
    const a = analyzeTransitions([]);
    expect(a.states).toEqual([S]);
    expect(a.expectedSteps).toBe(0);
    expect(a.endProbabilities).toEqual({});
  });

  it('draws the chain in Mermaid with each edge labelled by its probability and count', () => {
    const text = analysisToMermaid(analyzeTransitions(chain));
    expect(text).toContain('[*] --> n_A : 1.00 (3)');
    expect(text).toContain('n_A --> n_B : 0.60 (3)');
    expect(text).toContain('n_B --> n_A : 0.67 (2)');
    expect(text).toContain('n_A --> end_failed : 0.20 (1)');
    expect(text).toContain('state "end#58; completed" as end_completed');
    expect(text).toContain('end_completed --> [*]');
  });
});

describe('solveLinear', () => {
  it('solves a system that needs a row exchange, for several right-hand sides', () => {
    const x = solveLinear(
      [
        [0, 2, 1],
        [1, 1, 1],
        [2, 1, 3],
      ],
      [
        [7, 1],
        [6, 0],
        [13, 0],
      ],
    );
    // The first right-hand side is A·(1, 2, 3); the second is checked by substitution.
    const a = [
      [0, 2, 1],
      [1, 1, 1],
      [2, 1, 3],
    ];
    const b = [
      [7, 1],
      [6, 0],
      [13, 0],
    ];
    for (let c = 0; c < 2; c++) for (let r = 0; r < 3; r++) expect(a[r]!.reduce((s, v, k) => s + v * x[k]![c]!, 0)).toBeCloseTo(b[r]![c]!, 12);
    expect(x.map((row) => row[0])).toEqual([expect.closeTo(1, 12), expect.closeTo(2, 12), expect.closeTo(3, 12)]);
  });

  it('refuses a singular system', () => {
    expect(() =>
      solveLinear(
        [
          [1, 2],
          [2, 4],
        ],
        [[1], [2]],
      ),
    ).toThrowError(expect.objectContaining({ code: 'chain_not_absorbing' }));
  });
});
