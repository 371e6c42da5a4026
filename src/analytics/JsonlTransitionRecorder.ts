import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TraceEvent } from '../trace/TraceEvent.js';
import type { TraceRecorder } from '../trace/TraceRecorder.js';
import type { HopEvent, HopListener, HopTime } from '../trace/HopListener.js';
import { END_PREFIX } from './TransitionRecord.js';
import type { TransitionRun } from './TransitionSink.js';
import { TransitionTracker, type CostOptions, type TrackedEvent } from './TransitionTracker.js';
import { TransitionBatch } from './TransitionBatch.js';
import { TransitionWriterThread } from './TransitionWriterThread.js';
import { checkRecorderOptions, refuseOption } from './checkRecorderOptions.js';

/** The longest `flushMs`: Node fires longer timers at once. */
const MAX_FLUSH_MS = 2_147_483_647;

/** Options for a {@link JsonlTransitionRecorder}: pricing (see `TransitionRecorder`) and how writes are grouped. */
export interface JsonlTransitionRecorderOptions extends CostOptions {
  /** Lines written in one append at most: a whole number ≥ 1 (default 256); 1 writes each transition as it happens. */
  batch?: number;
  /** Milliseconds a line may wait for its batch before it is written anyway, 0 to 2,147,483,647 (default 1000). */
  flushMs?: number;
}

/**
 * Appends each step transition of a run (see `TransitionRecorder`) to a file as one line of JSON.
 * The run's own thread only keeps each transition's fields; a writer thread (one per process, shared
 * by every JSONL recorder, not keeping the process alive) encodes them and appends them, in groups:
 * a group is handed over when `batch` lines are waiting, when a run (or a specialist run) ends or
 * starts to wait (its last transition is the one to `__end__:`), at the latest `flushMs` after a
 * line was made, and on {@link flush}. A full batch is written while the run goes on; at a run's
 * end or wait, on the timer and on {@link flush}, the recorder waits until every line it handed over
 * is in the file, so the file holds every ended run complete when the run returns; a process that
 * exits (or calls `process.exit()`) first gives the thread time to write the batches it was handed,
 * and a process that dies loses at most the lines of the runs still going made in the last `flushMs`. Between the
 * full batches of runs going on the file stays open, and it is closed by every other write and at
 * the latest `flushMs` after the last one (a file renamed meanwhile takes the lines of that time).
 * Many runs (or a resumed one) can append to the same file (a recorder that finds it ending inside a
 * line, cut short by a process that died, starts on a new line); read it back with
 * `readTransitionsFile`. A process that cannot start the writer thread writes the same lines in its
 * own thread. An I/O error stops the recorder (the run goes on) and is kept in {@link error}, at the
 * latest when the run ends. A file that is no path or an existing directory, or options it cannot
 * use, are refused when it is made: AnalyticsError `invalid_recorder_options`, naming the option.
 *
 * @example
 * await graph.run('hi', { recorders: [new JsonlTransitionRecorder('transitions.jsonl')] });
 * analyzeTransitions(readTransitionsFile('transitions.jsonl'));
 */
export class JsonlTransitionRecorder implements TraceRecorder, HopListener {
  readonly rawEvents = true;
  /** Runs hand it their events on the light path (see `HopListener`). */
  readonly hops: HopListener = this;
  /** As its tracker's (see `HopListener.startsFromEdges`). */
  readonly startsFromEdges = true;
  readonly file: string;
  /** The write error that stopped the recorder, if any (known at the latest when the run that met it ends, or on {@link flush}). */
  error: Error | null = null;
  readonly #tracker: TransitionTracker;
  readonly #batch: number;
  readonly #flushMs: number;
  /** The lines waiting for their batch, as the fields of their transitions (encoded on the writer thread). */
  readonly #lines: TransitionBatch;
  /** The process's writer thread, started when the first lines are sent. */
  #thread: TransitionWriterThread | null = null;
  readonly #id = TransitionWriterThread.nextId();
  /** No batch was sent yet (the thread makes the folder and checks the file's end with the first). */
  #first = true;
  /** The thread holds the file open (a full batch was the last sent). */
  #open = false;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(file: string, options: JsonlTransitionRecorderOptions = {}) {
    const where = 'new JsonlTransitionRecorder(file, options)';
    if (typeof file !== 'string' || file.trim() === '') refuseOption('new JsonlTransitionRecorder(file)', '', 'the path of the file to append to (a non-empty string)', file);
    this.file = resolve(file);
    if (isDirectory(this.file)) {
      refuseOption('new JsonlTransitionRecorder(file)', '', `a file, not the directory ${this.file} (name a file in it, e.g. ${join(file, 'transitions.jsonl')})`, file);
    }
    checkRecorderOptions(options, where, ['batch', 'flushMs', 'costOf', 'prices']);
    const { batch = 256, flushMs = 1000 } = options;
    if (typeof batch !== 'number' || !Number.isInteger(batch) || batch < 1) refuseOption(where, '.batch', 'a whole number of lines ≥ 1 (1 writes each line as it is made)', batch);
    if (typeof flushMs !== 'number' || !Number.isFinite(flushMs) || flushMs < 0 || flushMs > MAX_FLUSH_MS) {
      refuseOption(where, '.flushMs', `milliseconds from 0 to ${MAX_FLUSH_MS} (the longest timer Node keeps)`, flushMs);
    }
    this.#batch = batch;
    this.#flushMs = flushMs;
    this.#lines = new TransitionBatch(batch);
    // The tracker hands each record's fields over (a TransitionSink): no record object is made.
    const add = (run: TransitionRun, from: string, to: string, at: number, durationMs: number, tokens: number, costUsd: number | undefined, nodeType: string, label: string): void => {
      this.#lines.add(run, from, to, at, durationMs, tokens, costUsd, nodeType, label);
      this.#added(to);
    };
    this.#tracker = new TransitionTracker({ add }, options);
  }

  record(event: TraceEvent): void {
    if (this.error !== null) return;
    try {
      this.#tracker.push(event as TrackedEvent);
    } catch (error) {
      // Refused (a costOf that threw or returned no price): the run detaches this recorder, so the
      // lines made before are written now, not left to a timer the process may not live to see.
      this.flush();
      throw error;
    }
  }

  hop(event: HopEvent, runId: string, path: string, time: HopTime): void {
    if (this.error !== null) return;
    try {
      this.#tracker.hop(event, runId, path, time);
    } catch (error) {
      this.flush(); // as in record()
      throw error;
    }
  }

  step(runId: string, path: string, nodeId: string, at: number, durationMs: number, result: unknown, to: string, kind: string, index: number, routeKey: string | undefined): void {
    if (this.error === null) this.#tracker.step(runId, path, nodeId, at, durationMs, result, to, kind, index, routeKey);
  }

  /** Writes the lines still waiting for their batch now, and closes the file; returns when they are in it. */
  flush(): void {
    this.#write(false);
  }

  /**
   * Sends the waiting lines to the writer thread. `keepOpen` (a full batch) leaves the file open for
   * the next batch and the timer as it is (armed now if it was not): it writes the lines after this
   * batch when they have waited flushMs at most, and closes the file. Otherwise the file is closed
   * and this waits until every line sent is written.
   */
  #write(keepOpen: boolean): void {
    if (this.error === null && (this.#lines.count !== 0 || this.#open)) {
      const batch = this.#lines.count === 0 ? null : this.#lines.take();
      (this.#thread ??= TransitionWriterThread.shared()).send({ id: this.#id, file: this.file, first: this.#first, batch, keepOpen }, this.#failed);
      if (batch !== null) this.#first = false;
      this.#open = keepOpen;
      // The thread forgets a closed file's string tables: the next batch brings its own.
      if (!keepOpen) this.#lines.restart();
    }
    if (keepOpen) return this.#arm();
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#thread?.settle();
  }

  /** A write error on the thread: the recorder stops (the run goes on). */
  readonly #failed = (error: Error): void => {
    this.error ??= error;
    this.#open = false;
  };

  /** A line was added (its transition went to `to`): written with its batch, at a run's end or wait, or by the timer. */
  #added(to: string): void {
    if (this.#lines.count >= this.#batch) return this.#write(!to.startsWith(END_PREFIX));
    if (to.startsWith(END_PREFIX)) return this.#write(false);
    this.#arm();
  }

  #arm(): void {
    if (this.#timer !== null) return;
    // Unreferenced: a line waiting for its batch (or an open file) does not keep the process alive.
    this.#timer = setTimeout(() => this.flush(), this.#flushMs);
    this.#timer.unref?.();
  }
}

/** True when `path` names an existing directory; anything that cannot be looked at (the write will say why) is not one. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
