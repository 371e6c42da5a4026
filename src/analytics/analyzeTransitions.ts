import { AnalyticsError } from '../errors/AnalyticsError.js';
import { setOwn } from './setOwn.js';
import { solveLinear } from './solveLinear.js';
import { START_STATE, statusOfState, TransitionRecord } from './TransitionRecord.js';
import { findCycles, runSequences, thrashOf, type Cycle, type RunSequence, type Thrash } from './runSequences.js';

/** What each state of the chain saw: how often it was left, and the time, tokens and cost spent in it. */
export interface StateStats {
  visits: number;
  meanDurationMs: number;
  tokens: number;
  /** Summed over the records that carried a cost; undefined when none did. */
  costUsd?: number;
}

/**
 * The absorbing Markov chain estimated from transition records (see {@link analyzeTransitions}).
 * `states` lists the start, the nodes (first seen first) and the absorbing states; `matrix[i][j]`
 * is the probability of going from `states[i]` to `states[j]` (absorbing rows: 1 on the diagonal).
 */
export interface TransitionAnalysis {
  /** The workflows the records came from (analyse one workflow at a time). */
  workflows: string[];
  /** Runs (and specialist runs) seen, and transitions counted. */
  runs: number;
  transitions: number;
  states: string[];
  /** The states a run leaves (the start and every node it left), and those it ends in. */
  transient: string[];
  absorbing: string[];
  /** Transition counts, `counts[i][j]` from `states[i]` to `states[j]`. */
  counts: number[][];
  matrix: number[][];
  /**
   * For each transient state, the probability of ending in each absorbing state, keyed by final
   * status (`completed`, `failed`, …; a node no run ever left is keyed by its id): B = N R.
   */
  absorption: Record<string, Record<string, number>>;
  /** The same from the start: how runs end. */
  endProbabilities: Record<string, number>;
  /**
   * The fundamental matrix N = (I − Q)⁻¹ over `transient` (rows and columns in that order):
   * `fundamental[i][j]` is the expected number of times a run in `transient[i]` visits `transient[j]`.
   */
  fundamental: number[][];
  /** Expected transitions from each transient state until the run ends (N·1). */
  stepsToEnd: Record<string, number>;
  /** Expected node executions of a run from its start to its end (`stepsToEnd` of the start − 1). */
  expectedSteps: number;
  stats: Record<string, StateStats>;
  thrash: Thrash;
  /** The loops runs went round most, most frequent first (at most 10). */
  cycles: Cycle[];
}

/**
 * The typed error for transient states from which no run reached an end: their names, the runs
 * that went into them and did not end (still going, or their last records lost), and what to do.
 */
function notAbsorbing(transient: readonly string[], counts: readonly (readonly number[])[], sequences: readonly RunSequence[]): AnalyticsError | null {
  const t = transient.length;
  // A state reaches an end when one of its observed hops leads to an end or to a state that does.
  const reaches = transient.map((_, i) => counts[i]!.some((c, j) => c > 0 && j >= t));
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < t; i++) {
      if (reaches[i] || !counts[i]!.some((c, j) => c > 0 && j < t && reaches[j])) continue;
      reaches[i] = true;
      changed = true;
    }
  }
  const stuck = transient.filter((_, i) => !reaches[i]);
  if (stuck.length === 0) return null;
  const inside = new Set(stuck);
  const runs = sequences.filter((s) => s.states.some((state) => inside.has(state))).map((s) => JSON.stringify(s.runId));
  const shown = runs.length > 5 ? `${runs.slice(0, 5).join(', ')} and ${runs.length - 5} more` : runs.join(', ');
  return new AnalyticsError(
    `no run ever left ${stuck.map((s) => JSON.stringify(s)).join(', ')} for an end, so how runs end from there cannot be estimated: the runs that went in (${shown}) have not ended (still going round, or their last records were lost); analyse again once they have ended, or leave their records out`,
    'chain_not_absorbing',
  );
}

/** Checks records handed in from outside (a file, a caller) before they are counted. */
function checkRecords(records: readonly unknown[]): TransitionRecord[] {
  if (!Array.isArray(records)) throw new AnalyticsError(`analyzeTransitions needs an array of TransitionRecords; received ${typeof records}`, 'invalid_transition_record');
  return records.map((record, i) => {
    const parsed = TransitionRecord.safeParse(record);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AnalyticsError(
        `transition record ${i} is not a TransitionRecord: ${issue?.path.join('.') || 'record'} ${issue?.message ?? 'is invalid'}; expected { runId, workflow, from, to, at, durationMs, tokens, costUsd?, nodeType, label }`,
        'invalid_transition_record',
      );
    }
    return parsed.data;
  });
}

/**
 * Estimates the workflow's Markov chain from its step transitions: the transition probability
 * matrix, for each state the probability of ending in each final status (an absorbing chain whose
 * absorbing states are the final statuses), the expected number of steps from the start to the end
 * (from the fundamental matrix N = (I − Q)⁻¹), the thrash score (the share of A→B→A moves) and the
 * loops runs go round most. A state no run ever left (a run still going) counts as absorbing; a run
 * that waited and went on counts once, without its wait. Throws AnalyticsError
 * `invalid_transition_record` for a record that is not one, and `chain_not_absorbing` when some
 * states never reach an end (naming them and the runs that went into them and have not ended).
 *
 * @example
 * const recorder = new TransitionRecorder();
 * for (const input of inputs) await graph.run(input, { recorders: [recorder] });
 * const { matrix, endProbabilities, expectedSteps, thrash } = analyzeTransitions(recorder.records);
 */
export function analyzeTransitions(records: readonly TransitionRecord[]): TransitionAnalysis {
  const checked = checkRecords(records);
  const sequences = runSequences(checked);
  const kept = sequences.flatMap((s) => s.records);
  const order = new Map<string, number>();
  const note = (state: string): void => {
    if (!order.has(state)) order.set(state, order.size);
  };
  note(START_STATE);
  for (const r of kept) {
    note(r.from);
    note(r.to);
  }
  const left = new Set(kept.map((r) => r.from));
  const named = [...order.keys()];
  const transient = named.filter((s) => s === START_STATE || (left.has(s) && statusOfState(s) === null));
  const absorbing = named.filter((s) => !transient.includes(s));
  const states = [...transient, ...absorbing];
  const index = new Map(states.map((s, i) => [s, i]));
  const n = states.length;
  const counts = states.map(() => new Array<number>(n).fill(0));
  const stats: Record<string, StateStats> = {};
  for (const s of states) setOwn(stats, s, { visits: 0, meanDurationMs: 0, tokens: 0 });
  for (const r of kept) {
    counts[index.get(r.from)!]![index.get(r.to)!]! += 1;
    const st = stats[r.from]!;
    st.visits += 1;
    st.meanDurationMs += r.durationMs;
    st.tokens += r.tokens;
    if (r.costUsd !== undefined) st.costUsd = (st.costUsd ?? 0) + r.costUsd;
  }
  for (const st of Object.values(stats)) if (st.visits > 0) st.meanDurationMs /= st.visits;
  const matrix = counts.map((row, i) => {
    const total = row.reduce((a, b) => a + b, 0);
    if (i >= transient.length || total === 0) return row.map((_, j) => (j === i ? 1 : 0));
    return row.map((c) => c / total);
  });
  // A start no record left (no records at all) ends nowhere: give it no row rather than a singular one.
  const t = transient.length;
  const lonelyStart = kept.length === 0;
  const stuck = lonelyStart ? null : notAbsorbing(transient, counts, sequences);
  if (stuck !== null) throw stuck;
  const iMinusQ = lonelyStart ? [] : transient.map((_, i) => transient.map((__, j) => (i === j ? 1 : 0) - matrix[i]![j]!));
  const identity = transient.map((_, i) => transient.map((__, j) => (i === j ? 1 : 0)));
  const fundamental = lonelyStart ? [] : solveLinear(iMinusQ, identity);
  const absorption: Record<string, Record<string, number>> = {};
  const stepsToEnd: Record<string, number> = {};
  for (let i = 0; i < (lonelyStart ? 0 : t); i++) {
    const row = fundamental[i]!;
    setOwn(stepsToEnd, transient[i]!, row.reduce((a, b) => a + b, 0));
    const ends: Record<string, number> = {};
    for (let a = 0; a < absorbing.length; a++) {
      let p = 0;
      for (let k = 0; k < t; k++) p += row[k]! * matrix[k]![t + a]!;
      setOwn(ends, statusOfState(absorbing[a]!) ?? absorbing[a]!, p);
    }
    setOwn(absorption, transient[i]!, ends);
  }
  return {
    workflows: [...new Set(kept.map((r) => r.workflow))],
    runs: new Set(sequences.map((s) => s.runId)).size,
    transitions: kept.length,
    states,
    transient,
    absorbing,
    counts,
    matrix,
    absorption,
    endProbabilities: absorption[START_STATE] ?? {},
    fundamental,
    stepsToEnd,
    expectedSteps: lonelyStart ? 0 : Math.max(0, stepsToEnd[START_STATE]! - 1),
    stats,
    thrash: thrashOf(sequences),
    cycles: findCycles(sequences, matrix, index),
  };
}
