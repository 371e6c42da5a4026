import type { TraceEvent } from '../trace/TraceEvent.js';
import type { TraceRecorder } from '../trace/TraceRecorder.js';
import type { TransitionRecord } from './TransitionRecord.js';
import type { PriceTable } from '../budget/PriceTable.js';
import { TransitionTracker, type CostOf, type TrackedEvent } from './TransitionTracker.js';
import { TransitionColumns } from './TransitionColumns.js';
import { liveRecords } from './liveRecords.js';
import { checkRecorderOptions, refuseOption } from './checkRecorderOptions.js';

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
 * trace read back, say), and makes the same records from them. Options it does not take (a name
 * misspelt, an `onTransition` that is no function, a price that is no price) are refused when it
 * is made: AnalyticsError `invalid_recorder_options`, naming the option.
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
  #records: TransitionRecord[];
  readonly #columns: TransitionColumns | null = null;

  constructor(options: TransitionRecorderOptions = {}) {
    const where = 'new TransitionRecorder(options)';
    checkRecorderOptions(options, where, ['onTransition', 'costOf', 'prices']);
    if (options.onTransition !== undefined && typeof options.onTransition !== 'function') refuseOption(where, '.onTransition', 'a function that takes each record (or nothing, to keep them in records)', options.onTransition);
    if (options.onTransition !== undefined) {
      this.#records = [];
      this.hops = new TransitionTracker(options.onTransition, options);
      return;
    }
    // Kept records wait in columns (no object per step, see TransitionColumns) until they are read.
    const columns = new TransitionColumns();
    this.#columns = columns;
    this.#records = liveRecords(columns);
    this.hops = new TransitionTracker(columns, options);
  }

  /**
   * The records so far, when no `onTransition` was given (empty with it): always the same array, up to
   * date whenever it is looked at, so one taken before a run, or read while runs are going on, holds
   * every record made until then. The records are built as objects when the array is first read after
   * they happened (reading `length` alone builds none), not at every step nor when a run ends. It is
   * an array (`Array.isArray`, JSON, spreading and array methods work as usual) seen through a
   * Proxy: `structuredClone` and `postMessage` take a copy (`records.slice()`), not the array itself.
   * Records you remove or add stay so; later records are appended after them. Frozen or sealed (an
   * immutable store's auto-freeze, say), an array keeps what it held then and takes no later record;
   * the next read of `records` then gives a new array, up to date, with every record from the first.
   */
  get records(): TransitionRecord[] {
    if (this.#columns !== null && !Object.isExtensible(this.#records)) this.#records = liveRecords(this.#columns);
    return this.#records;
  }

  record(event: TraceEvent): void {
    this.hops.push(event as TrackedEvent);
  }
}
