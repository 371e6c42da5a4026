import type { RunStore } from '../persistence/RunStore.js';
import type { TransitionRecord } from './TransitionRecord.js';
import { TransitionTracker, type CostOptions, type TrackedEvent } from './TransitionTracker.js';
import { checkRecorderOptions, refuseOption } from './checkRecorderOptions.js';

/** Which stored runs {@link storedTransitions} reads. */
export interface StoredTransitionsOptions extends CostOptions {
  /** Only runs of this graph (by name). */
  graph?: string;
  /** Only runs created at or after this time (epoch ms or a Date). */
  since?: number | Date;
  /** At most this many runs, newest first (default: all). */
  limit?: number;
}

/** Events read per page. */
const PAGE = 5_000;

/**
 * The step transitions of stored runs, read from their event logs (what every stored run already
 * keeps: node starts and completions with their durations and usage, edges and the final status),
 * so recording them costs a stored run nothing more. Runs oldest first, each run's records in order;
 * specialist runs inside a run are included (their `workflow` is their own graph). A run still going
 * ends its records at its current node. Options it cannot use (a `since` given as text, say) are
 * refused: AnalyticsError `invalid_recorder_options`, naming the option.
 *
 * @example
 * const records = await storedTransitions(store, { graph: 'support', since: Date.now() - 86_400_000 });
 * analyzeTransitions(records.filter((r) => r.workflow === 'support'));
 */
export async function storedTransitions(store: RunStore, options: StoredTransitionsOptions = {}): Promise<TransitionRecord[]> {
  const where = 'storedTransitions(store, options)';
  checkRecorderOptions(options, where, ['graph', 'since', 'limit', 'costOf', 'prices']);
  if (options.graph !== undefined && typeof options.graph !== 'string') refuseOption(where, '.graph', 'a graph name (a string)', options.graph);
  const since = options.since instanceof Date ? options.since.getTime() : options.since;
  // A date written as text would compare as text and silently match no run.
  if (since !== undefined && (typeof since !== 'number' || !Number.isFinite(since))) {
    refuseOption(where, '.since', "a time: epoch milliseconds or a valid Date (for text, new Date('2026-12-01'))", options.since);
  }
  if (options.limit !== undefined && (typeof options.limit !== 'number' || !Number.isInteger(options.limit) || options.limit < 1)) {
    refuseOption(where, '.limit', 'a whole number of runs ≥ 1 (or nothing, for all)', options.limit);
  }
  const runs = await store.listRuns({
    ...(options.graph === undefined ? {} : { graphName: options.graph }),
    limit: options.limit ?? Number.MAX_SAFE_INTEGER,
  });
  const chosen = runs.filter((run) => since === undefined || run.createdAt >= since).reverse();
  const records: TransitionRecord[] = [];
  const tracker = new TransitionTracker((record) => records.push(record), options);
  for (const run of chosen) {
    let afterSeq = 0;
    for (;;) {
      const page = await store.listEvents(run.runId, { afterSeq, limit: PAGE });
      for (const event of page) tracker.push(event.data as TrackedEvent);
      if (page.length < PAGE) break;
      afterSeq = page[page.length - 1]!.seq;
    }
  }
  return records;
}
