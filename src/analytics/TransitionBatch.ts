import type { TransitionRun, TransitionSink } from './TransitionSink.js';

/** Whole numbers kept per record: run, from, to, node type, label (indexes in the string table) and whether it has a cost. */
export const BATCH_INTS = 6;
/** Numbers kept per record: at, durationMs, tokens, costUsd. */
export const BATCH_NUMBERS = 4;
/** Strings a batch table holds before it starts anew (run ids do not repeat across runs). */
const MAX_STRINGS = 4096;

/**
 * A batch of transition records as plain columns, to be encoded elsewhere (by a
 * `TransitionFileWriter`, on the writer thread): each string once, in a table both sides keep and
 * the batch adds to (`strings`, from index `stringBase`: the other side drops what it holds from
 * there on, so a base of 0 starts the table anew), runs as [runId, workflow, path] string indexes
 * (path -1: none) added to a run table the same way, and per record {@link BATCH_INTS} whole numbers
 * and {@link BATCH_NUMBERS} numbers.
 */
export interface BatchMessage {
  stringBase: number;
  strings: string[];
  runBase: number;
  runs: number[];
  count: number;
  ints: Int32Array;
  numbers: Float64Array;
}

/**
 * Takes a `TransitionTracker`'s records field by field (a `TransitionSink`) and keeps them as a
 * {@link BatchMessage}: numbers and string indexes in typed arrays, handed over whole by
 * {@link take} (their buffers can be transferred to another thread). What it does per record is a
 * few table lookups and stores; the encoding to JSON is left to the side that writes.
 */
export class TransitionBatch implements TransitionSink {
  readonly #capacity: number;
  readonly #index = new Map<string, number>();
  #strings: string[] = [];
  #stringBase = 0;
  /** Each run's index in the run table (a new map when the tables start anew). */
  #runIndex = new WeakMap<TransitionRun, number>();
  #runs: number[] = [];
  #runBase = 0;
  #runCount = 0;
  #lastRun: TransitionRun | null = null;
  #lastRunIndex = -1;
  #ints: Int32Array;
  #numbers: Float64Array;
  #count = 0;

  /** A batch of at most `capacity` records before {@link take} (it grows if given more). */
  constructor(capacity: number) {
    this.#capacity = Math.max(1, Math.min(capacity, 4096));
    this.#ints = new Int32Array(this.#capacity * BATCH_INTS);
    this.#numbers = new Float64Array(this.#capacity * BATCH_NUMBERS);
  }

  /** How many records the batch holds. */
  get count(): number {
    return this.#count;
  }

  add(run: TransitionRun, from: string, to: string, at: number, durationMs: number, tokens: number, costUsd: number | undefined, nodeType: string, label: string): void {
    const i = this.#count;
    if ((i + 1) * BATCH_INTS > this.#ints.length) this.#grow();
    const runIndex = run === this.#lastRun ? this.#lastRunIndex : this.#runOf(run);
    const ints = this.#ints;
    const k = i * BATCH_INTS;
    ints[k] = runIndex;
    ints[k + 1] = this.#str(from);
    ints[k + 2] = this.#str(to);
    ints[k + 3] = this.#str(nodeType);
    ints[k + 4] = this.#str(label);
    ints[k + 5] = costUsd === undefined ? 0 : 1;
    const numbers = this.#numbers;
    const n = i * BATCH_NUMBERS;
    numbers[n] = at;
    numbers[n + 1] = durationMs;
    numbers[n + 2] = tokens;
    numbers[n + 3] = costUsd ?? 0;
    this.#count = i + 1;
  }

  /** The records added since the last call, with the table entries they use that the other side has not had, and starts anew. */
  take(): BatchMessage {
    const count = this.#count;
    // A batch well short of full (a run's end) takes copies of its records and the arrays are kept;
    // a full one takes the arrays themselves (their buffers can be moved to another thread) and new ones are made.
    const short = count * 4 < this.#capacity;
    const message: BatchMessage = {
      stringBase: this.#stringBase,
      strings: this.#strings,
      runBase: this.#runBase,
      runs: this.#runs,
      count,
      ints: short ? this.#ints.slice(0, count * BATCH_INTS) : this.#ints,
      numbers: short ? this.#numbers.slice(0, count * BATCH_NUMBERS) : this.#numbers,
    };
    this.#stringBase += this.#strings.length;
    this.#strings = [];
    this.#runBase = this.#runCount;
    this.#runs = [];
    this.#count = 0;
    if (!short) {
      this.#ints = new Int32Array(this.#capacity * BATCH_INTS);
      this.#numbers = new Float64Array(this.#capacity * BATCH_NUMBERS);
    }
    // The tables start anew with the next batch when they have grown large (the next batch's bases are 0).
    if (this.#stringBase > MAX_STRINGS) this.restart();
    return message;
  }

  /**
   * Starts the string and run tables anew: the next batch brings every entry it uses from index 0
   * (for a side that forgot them, as the writer thread forgets a file's tables when it closes it).
   * Records added and not taken must be taken first.
   */
  restart(): void {
    this.#index.clear();
    this.#stringBase = 0;
    this.#runBase = 0;
    this.#runCount = 0;
    this.#lastRun = null;
    this.#runIndex = new WeakMap();
  }

  #runOf(run: TransitionRun): number {
    let index = this.#runIndex.get(run);
    if (index === undefined) {
      index = this.#runCount++;
      this.#runs.push(this.#str(run.runId), this.#str(run.workflow), run.path === undefined ? -1 : this.#str(run.path));
      this.#runIndex.set(run, index);
    }
    this.#lastRun = run;
    this.#lastRunIndex = index;
    return index;
  }

  #str(value: string): number {
    let index = this.#index.get(value);
    if (index === undefined) {
      index = this.#stringBase + this.#strings.length;
      this.#strings.push(value);
      this.#index.set(value, index);
    }
    return index;
  }

  #grow(): void {
    const ints = new Int32Array(this.#ints.length * 2);
    ints.set(this.#ints);
    this.#ints = ints;
    const numbers = new Float64Array(this.#numbers.length * 2);
    numbers.set(this.#numbers);
    this.#numbers = numbers;
  }
}
