/** The fields of a transition that stay the same for a whole run (or specialist run): one object per run, shared by its records. */
export interface TransitionRun {
  readonly runId: string;
  readonly workflow: string;
  readonly path: string;
}

/**
 * Takes a `TransitionTracker`'s records field by field, with no record object made for them: the
 * run's shared fields, then the record's own (`costUsd` undefined: the record has none). A
 * `TransitionColumns` keeps them; a JSONL recorder encodes them as a line at once.
 */
export interface TransitionSink {
  add(run: TransitionRun, from: string, to: string, at: number, durationMs: number, tokens: number, costUsd: number | undefined, nodeType: string, label: string): void;
}
