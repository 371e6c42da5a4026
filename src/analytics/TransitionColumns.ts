import type { TransitionRecord } from './TransitionRecord.js';
import type { TransitionRun, TransitionSink } from './TransitionSink.js';

/** Numbers kept per record: at, durationMs, tokens, costUsd (NaN: none). */
const NUMBERS = 4;

/**
 * Transition records kept column by column instead of as one object each: a run's records share
 * its run fields, their strings (node ids, node types, labels) are references to strings the run
 * already holds, and their numbers sit in one growing `Float64Array`. A long run recorded in memory
 * then leaves almost nothing for the garbage collector to copy from step to step; {@link record}
 * builds a record when it is read (a `TransitionRecorder` does so when its `records` are read).
 * Give it to a `TransitionTracker` in place of a function.
 *
 * @example
 * const columns = new TransitionColumns();
 * const tracker = new TransitionTracker(columns);
 * for (const event of events) tracker.push(event);
 * const first = columns.record(0);
 */
export class TransitionColumns implements TransitionSink {
  #runs: TransitionRun[] = [];
  #from: string[] = [];
  #to: string[] = [];
  #nodeType: string[] = [];
  #label: string[] = [];
  #numbers = new Float64Array(NUMBERS * 256);
  #length = 0;

  /** How many records are kept. */
  get length(): number {
    return this.#length;
  }

  /** Keeps one record (`costUsd` undefined: the record has none). */
  add(run: TransitionRun, from: string, to: string, at: number, durationMs: number, tokens: number, costUsd: number | undefined, nodeType: string, label: string): void {
    const i = this.#length;
    let numbers = this.#numbers;
    if ((i + 1) * NUMBERS > numbers.length) {
      const grown = new Float64Array(numbers.length * 2);
      grown.set(numbers);
      this.#numbers = numbers = grown;
    }
    const n = i * NUMBERS;
    numbers[n] = at;
    numbers[n + 1] = durationMs;
    numbers[n + 2] = tokens;
    numbers[n + 3] = costUsd === undefined ? NaN : costUsd;
    this.#runs.push(run);
    this.#from.push(from);
    this.#to.push(to);
    this.#nodeType.push(nodeType);
    this.#label.push(label);
    this.#length = i + 1;
  }

  /** The record at `index` (0 is the first kept), as a new object: the same fields, in the same order, as the tracker's records. */
  record(index: number): TransitionRecord {
    if (!Number.isInteger(index) || index < 0 || index >= this.#length) {
      throw new RangeError(`transition record ${index} does not exist; the columns hold records 0 to ${this.#length - 1}`);
    }
    const run = this.#runs[index]!;
    const n = index * NUMBERS;
    const numbers = this.#numbers;
    const record: TransitionRecord = {
      runId: run.runId,
      workflow: run.workflow,
      from: this.#from[index]!,
      to: this.#to[index]!,
      at: numbers[n]!,
      durationMs: numbers[n + 1]!,
      tokens: numbers[n + 2]!,
      nodeType: this.#nodeType[index]!,
      label: this.#label[index]!,
      path: run.path,
    };
    const cost = numbers[n + 3]!;
    if (!Number.isNaN(cost)) record.costUsd = cost;
    return record;
  }

  /** Appends to `list` the records from index `start` on (to bring a list made earlier up to date). */
  appendTo(list: TransitionRecord[], start: number): void {
    for (let i = start; i < this.#length; i++) list.push(this.record(i));
  }
}
