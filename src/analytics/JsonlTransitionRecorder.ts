import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { TraceEvent } from '../trace/TraceEvent.js';
import type { TraceRecorder } from '../trace/TraceRecorder.js';
import type { HopEvent, HopListener, HopTime } from '../trace/HopListener.js';
import { END_PREFIX } from './TransitionRecord.js';
import type { TransitionRun } from './TransitionSink.js';
import { TransitionTracker, type CostOptions, type TrackedEvent } from './TransitionTracker.js';
import { TransitionLineEncoder } from './TransitionLineEncoder.js';
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
 * Lines are written in groups: one synchronous append when `batch` lines are waiting, when a run
 * (or a specialist run) ends or starts to wait (its last transition is the one to `__end__:`), at
 * the latest `flushMs` after a line was made, and on {@link flush}. Each line is encoded as its
 * transition is made (no record object is kept for it). Between the full batches of runs going on
 * the file stays open, and it is closed by every other write and at the latest `flushMs` after the
 * last one (a file renamed meanwhile takes the lines of that time). So the file holds every ended
 * run complete, and a process that dies loses at most the lines of the runs still going made in
 * the last `flushMs`. Many runs (or a resumed one) can append to the same file (a recorder that
 * finds it ending inside a line, cut short by a process that died, starts on a new line); read it
 * back with `readTransitionsFile`. An I/O error stops the recorder (the run goes on) and is kept in {@link error}.
 * A file that is no path or an existing directory, or options it cannot use, are refused when it is
 * made: AnalyticsError `invalid_recorder_options`, naming the option.
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
  /** The write error that stopped the recorder, if any. */
  error: Error | null = null;
  #ready = false;
  readonly #tracker: TransitionTracker;
  readonly #batch: number;
  readonly #flushMs: number;
  /** The lines waiting for their batch, encoded as their transitions were made. */
  readonly #encoder = new TransitionLineEncoder();
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** The file, open between full batches (see {@link flush}); null when closed. */
  #fd: number | null = null;

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
    // The tracker hands each record's fields over (a TransitionSink): no record object is made.
    const add = (run: TransitionRun, from: string, to: string, at: number, durationMs: number, tokens: number, costUsd: number | undefined, nodeType: string, label: string): void => {
      this.#encoder.add(run, from, to, at, durationMs, tokens, costUsd, nodeType, label);
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

  /** Writes the lines still waiting for their batch now, and closes the file. */
  flush(): void {
    this.#write(false);
  }

  /**
   * Writes the waiting lines. `keepOpen` (a full batch) leaves the file open for the next batch and
   * the timer as it is (armed now if it was not): it writes the lines after this batch when they
   * have waited flushMs at most, and closes the file.
   */
  #write(keepOpen: boolean): void {
    if (this.#encoder.lines !== 0) {
      const lines = this.#encoder.take();
      if (this.error !== null) return;
      try {
        if (this.#fd === null) {
          if (!this.#ready) {
            mkdirSync(dirname(this.file), { recursive: true });
            this.#ready = true;
            // A process that died while appending left a line cut short: start on a line of our own,
            // or the first record would be glued to it and lost with it.
            if (endsInsideLine(this.file)) appendFileSync(this.file, '\n');
          }
          this.#fd = openSync(this.file, 'a');
        }
        writeAll(this.#fd, lines);
      } catch (error) {
        this.error = error as Error;
        keepOpen = false;
      }
    }
    if (keepOpen) return this.#arm();
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#close();
  }

  #close(): void {
    const fd = this.#fd;
    if (fd === null) return;
    this.#fd = null;
    try {
      closeSync(fd);
    } catch (error) {
      this.error ??= error as Error;
    }
  }

  /** A line was added (its transition went to `to`): written with its batch, at a run's end or wait, or by the timer. */
  #added(to: string): void {
    if (this.#encoder.lines >= this.#batch) return this.#write(!to.startsWith(END_PREFIX));
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

/** Writes all of `bytes` to `fd` (a write may take only part of them, as to a pipe). */
function writeAll(fd: number, bytes: Uint8Array): void {
  let at = 0;
  while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
}

/**
 * True when `path` is a regular file, not empty, whose last byte is not a line end. Anything else
 * (no file yet, a pipe or a device, which opening to read could block on, a file it cannot read)
 * is not one: the append goes ahead as it is.
 */
function endsInsideLine(path: string): boolean {
  let fd: number | null = null;
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile() || stat.size === 0) return false;
    fd = openSync(path, 'r');
    const { size } = fstatSync(fd);
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } catch {
    return false;
  } finally {
    if (fd !== null) closeSync(fd);
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
