import { endState, START_STATE, type TransitionRecord } from './TransitionRecord.js';

/** One run's transitions in order, and the states it went through. */
export interface RunSequence {
  runId: string;
  records: TransitionRecord[];
  /** `from` of the first record, then each record's `to`. */
  states: string[];
}

/** How much runs go back and forth: the share of A→B→A moves among all moves of two steps. */
export interface Thrash {
  /** `moves / windows` (0 when there are no two-step moves). */
  score: number;
  /** Two-step moves A→B→A with A ≠ B. */
  moves: number;
  /** Every two-step move (three consecutive states of a run). */
  windows: number;
  /** The pairs runs bounce between most (A→B→A counted under A→B), most first, at most 10. */
  pairs: { from: string; to: string; count: number }[];
}

/** A loop runs went round: its states in order (starting at its first visited state), how often. */
export interface Cycle {
  states: string[];
  /** Times a run went round it. */
  count: number;
  /** Runs that went round it at least once. */
  runs: number;
  /** The chance of going round it once from its first state (product of its edge probabilities). */
  probability: number;
}

const WAITING = endState('waiting');

/**
 * Groups records by run, in the order given: one sequence per start of a run, so a failed run an
 * operator retried (its id starts again from the start) is two paths, not one going on through its
 * end. A run that waited and went on (a later record of the same run follows its wait) keeps its
 * path without the wait.
 */
export function runSequences(records: readonly TransitionRecord[]): RunSequence[] {
  const byRun = new Map<string, TransitionRecord[][]>();
  for (const record of records) {
    let legs = byRun.get(record.runId);
    if (legs === undefined) byRun.set(record.runId, (legs = [[]]));
    let leg = legs[legs.length - 1]!;
    if (record.from === START_STATE && leg.length > 0) legs.push((leg = []));
    leg.push(record);
  }
  const sequences: RunSequence[] = [];
  for (const [runId, legs] of byRun) {
    for (const list of legs) {
      const kept = list.filter((r, i) => r.to !== WAITING || i === list.length - 1);
      const states = kept.length === 0 ? [] : [kept[0]!.from, ...kept.map((r) => r.to)];
      sequences.push({ runId, records: kept, states });
    }
  }
  return sequences;
}

/** The thrash score of the runs' paths. */
export function thrashOf(sequences: readonly RunSequence[]): Thrash {
  let moves = 0;
  let windows = 0;
  const pairs = new Map<string, { from: string; to: string; count: number }>();
  for (const { states } of sequences) {
    for (let i = 2; i < states.length; i++) {
      windows += 1;
      const a = states[i - 2]!;
      const b = states[i - 1]!;
      if (states[i] !== a || a === b) continue;
      moves += 1;
      const key = `${a}\u0000${b}`;
      const pair = pairs.get(key) ?? { from: a, to: b, count: 0 };
      pair.count += 1;
      pairs.set(key, pair);
    }
  }
  return {
    score: windows === 0 ? 0 : moves / windows,
    moves,
    windows,
    pairs: [...pairs.values()].sort((x, y) => y.count - x.count).slice(0, 10),
  };
}

/**
 * The loops runs went round: each time a run comes back to a state, the states since its last visit
 * form a loop (rotated to start at its earliest state in the state order, so A→B→A and B→A→B
 * are one loop). Most frequent first, at most `limit`.
 */
export function findCycles(sequences: readonly RunSequence[], matrix: readonly (readonly number[])[], index: ReadonlyMap<string, number>, limit = 10): Cycle[] {
  const found = new Map<string, Cycle & { lastRun: string }>();
  for (const { runId, states } of sequences) {
    const lastSeen = new Map<string, number>();
    states.forEach((state, i) => {
      const before = lastSeen.get(state);
      lastSeen.set(state, i);
      if (before === undefined) return;
      const loop = states.slice(before, i);
      let first = 0;
      for (let k = 1; k < loop.length; k++) if (index.get(loop[k]!)! < index.get(loop[first]!)!) first = k;
      const rotated = [...loop.slice(first), ...loop.slice(0, first)];
      const key = rotated.join('\u0000');
      let cycle = found.get(key);
      if (cycle === undefined) {
        let probability = 1;
        for (let k = 0; k < rotated.length; k++) probability *= matrix[index.get(rotated[k]!)!]![index.get(rotated[(k + 1) % rotated.length]!)!]!;
        cycle = { states: rotated, count: 0, runs: 0, probability, lastRun: '' };
        found.set(key, cycle);
      }
      cycle.count += 1;
      if (cycle.lastRun !== runId) {
        cycle.runs += 1;
        cycle.lastRun = runId;
      }
    });
  }
  return [...found.values()]
    .sort((x, y) => y.count - x.count || x.states.length - y.states.length)
    .slice(0, limit)
    .map(({ lastRun: _, ...cycle }) => cycle);
}
