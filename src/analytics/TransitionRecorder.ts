import type { TraceEvent } from '../trace/TraceEvent.js';
import type { TraceRecorder } from '../trace/TraceRecorder.js';
import { END_PREFIX, type TransitionRecord } from './TransitionRecord.js';
import type { PriceTable } from '../budget/PriceTable.js';
import { TransitionTracker, type CostOf, type TrackedEvent } from './TransitionTracker.js';
import { TransitionColumns, type TransitionRun } from './TransitionColumns.js';

/**
 * The columns of a recorder that keeps its records: a record that ends a run (or a specialist run)
 * brings the recorder's `records` up to date, so an array taken from it earlier holds every run
 * that has ended, as it did when records were pushed one by one.
 */
class KeptColumns extends TransitionColumns {
  constructor(readonly onRunEnd: () => void) {
    super();
  }

  override add(run: TransitionRun, from: string, to: string, at: number, durationMs: number, tokens: number, costUsd: number | undefined, nodeType: string, label: string): void {
    super.add(run, from, to, at, durationMs, tokens, costUsd, nodeType, label);
    if (to.startsWith(END_PREFIX)) this.onRunEnd();
  }
}

/** Options for a {@link TransitionRecorder}. */
export interface TransitionRecorderOptions {
  /** Receives each record as it happens; without it the records are kept in {@link TransitionRecorder.records}. */
  onTransition?: (record: TransitionRecord) => void;
  /**
   * Prices model calls for `costUsd` (default: the price table budgets use, {@link prices} first).
   * A step whose usage names no model (a plain node's `usage`), or a model no table names, has none.
   */
  costOf?: CostOf;
  /** Your own prices (USD per million input / output tokens by model id), before the defaults. */
  prices?: Readonly<PriceTable>;
}

/**
 * Hands every step transition of a run, and of the specialist runs it starts, to you as a
 * {@link TransitionRecord}: pass it in `recorders` like any recorder (`run`, `stream`, `resume`, a
 * typed `Workflow`'s run, the workbench). Runs hand it their events on the light path (see
 * `HopListener`): unstamped, neither redacted nor copied, so a run whose only recorders are
 * transition recorders builds no trace events at all. {@link record} takes stamped events too (a
 * trace read back, say), and makes the same records from them.
 *
 * @example
 * const transitions = new TransitionRecorder();
 * await graph.run('hi', { recorders: [transitions] });
 * analyzeTransitions(transitions.records).matrix;
 */
export class TransitionRecorder implements TraceRecorder {
  readonly rawEvents = true;
  /** The light path runs take (see `TraceRecorder.hops`). */
  readonly hops: TransitionTracker;
  /** Where records are kept while nobody reads them (no object per step, see {@link TransitionColumns}); null with `onTransition`. */
  readonly #columns: TransitionColumns | null;
  readonly #records: TransitionRecord[] = [];
  /** How many kept records {@link records} has made so far. */
  #made = 0;

  constructor(options: TransitionRecorderOptions = {}) {
    this.#columns = options.onTransition === undefined ? new KeptColumns(() => this.#catchUp()) : null;
    this.hops = new TransitionTracker(options.onTransition ?? this.#columns!, options);
  }

  /**
   * The records so far, when no `onTransition` was given: always the same array, brought up to date
   * when read and whenever a run (or a specialist run) ends (the records of a run are built as
   * objects then, not at every step). An array taken earlier so holds every run that has ended.
   */
  get records(): TransitionRecord[] {
    this.#catchUp();
    return this.#records;
  }

  /** Builds the kept records not yet in {@link records}. */
  #catchUp(): void {
    const columns = this.#columns;
    if (columns !== null && this.#made < columns.length) {
      columns.appendTo(this.#records, this.#made);
      this.#made = columns.length;
    }
  }

  record(event: TraceEvent): void {
    this.hops.push(event as TrackedEvent);
  }
}
