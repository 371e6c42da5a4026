import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { TraceEvent } from '../trace/TraceEvent.js';
import type { TraceRecorder } from '../trace/TraceRecorder.js';
import type { HopEvent, HopListener, HopTime } from '../trace/HopListener.js';
import type { TransitionRecord } from './TransitionRecord.js';
import { TransitionTracker, type CostOptions, type TrackedEvent } from './TransitionTracker.js';

/**
 * Appends each step transition of a run (see `TransitionRecorder`) to a file as one line of JSON.
 * Writes are synchronous appends, so the file is complete up to the last transition if the process
 * dies, and many runs (or a resumed one) can append to the same file; read it back with
 * `readTransitionsFile`. An I/O error stops the recorder (the run goes on) and is kept in {@link error}.
 *
 * @example
 * await graph.run('hi', { recorders: [new JsonlTransitionRecorder('transitions.jsonl')] });
 * analyzeTransitions(readTransitionsFile('transitions.jsonl'));
 */
export class JsonlTransitionRecorder implements TraceRecorder, HopListener {
  readonly rawEvents = true;
  /** Runs hand it their events on the light path (see `HopListener`). */
  readonly hops: HopListener = this;
  readonly file: string;
  /** The write error that stopped the recorder, if any. */
  error: Error | null = null;
  #ready = false;
  readonly #tracker: TransitionTracker;

  constructor(file: string, options: CostOptions = {}) {
    this.file = resolve(file);
    this.#tracker = new TransitionTracker((record) => this.#write(record), options);
  }

  record(event: TraceEvent): void {
    if (this.error === null) this.#tracker.push(event as TrackedEvent);
  }

  hop(event: HopEvent, runId: string, path: string, time: HopTime): void {
    if (this.error === null) this.#tracker.hop(event, runId, path, time);
  }

  #write(record: TransitionRecord): void {
    try {
      if (!this.#ready) {
        mkdirSync(dirname(this.file), { recursive: true });
        this.#ready = true;
      }
      appendFileSync(this.file, `${JSON.stringify(record)}\n`);
    } catch (error) {
      this.error = error as Error;
    }
  }
}
