import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { BATCH_INTS, BATCH_NUMBERS, type BatchMessage } from './TransitionBatch.js';
import { TransitionLineEncoder } from './TransitionLineEncoder.js';
import type { TransitionRun } from './TransitionSink.js';

/**
 * The writing side of a JSONL transition recorder: takes its batches ({@link BatchMessage}),
 * encodes them as JSON lines and appends them to the file, which it opens when it first writes and
 * keeps open while told to (see {@link write}). It runs on the writer thread (see
 * `TransitionWriterThread`), or in the recorder's own thread when no thread could be started. A
 * write error is returned, and the writer writes nothing after it.
 */
export class TransitionFileWriter {
  readonly file: string;
  readonly #encoder: TransitionLineEncoder;
  #strings: string[] = [];
  #runs: TransitionRun[] = [];
  #ready = false;
  #fd: number | null = null;
  #error: Error | null = null;

  /**
   * A writer of `file`, encoding with `encoder` (writers that write one after the other can share
   * one); `ready` when an earlier writer of the same recorder already made the file's folder and
   * ended a line left cut short (only a recorder's first write does).
   */
  constructor(file: string, encoder: TransitionLineEncoder = new TransitionLineEncoder(), ready = false) {
    this.file = file;
    this.#encoder = encoder;
    this.#ready = ready;
  }

  /**
   * Appends the batch's lines (none: only the closing, if asked) and leaves the file open for the
   * next batch when `keepOpen`, or closes it. Returns the error that stopped the writer, if any.
   */
  write(batch: BatchMessage | null, keepOpen: boolean): Error | null {
    if (batch !== null) this.#encode(batch);
    if (this.#encoder.lines !== 0) {
      const lines = this.#encoder.take();
      if (this.#error === null) {
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
          this.#error = error as Error;
          keepOpen = false;
        }
      }
    }
    if (!keepOpen) this.close();
    return this.#error;
  }

  /** Closes the file if it is open. */
  close(): void {
    const fd = this.#fd;
    if (fd === null) return;
    this.#fd = null;
    try {
      closeSync(fd);
    } catch (error) {
      this.#error ??= error as Error;
    }
  }

  /** Hands the batch's records to the encoder, after taking in the table entries it brings. */
  #encode(batch: BatchMessage): void {
    const strings = this.#strings;
    // Entries this side never had (its tables went with a writer thread that stopped): refused whole, nothing written.
    if (batch.stringBase > strings.length || batch.runBase > this.#runs.length) {
      throw new Error(`a transition batch refers to ${batch.stringBase} strings and ${batch.runBase} runs sent before, of which this writer has ${strings.length} and ${this.#runs.length} (its writer thread stopped)`);
    }
    strings.length = batch.stringBase;
    for (const value of batch.strings) strings.push(value);
    const runs = this.#runs;
    runs.length = batch.runBase;
    for (let i = 0; i < batch.runs.length; i += 3) {
      const path = batch.runs[i + 2]!;
      runs.push({ runId: strings[batch.runs[i]!]!, workflow: strings[batch.runs[i + 1]!]!, path: (path === -1 ? undefined : strings[path]) as string });
    }
    const { ints, numbers, count } = batch;
    for (let r = 0; r < count; r++) {
      const k = r * BATCH_INTS;
      const n = r * BATCH_NUMBERS;
      this.#encoder.add(runs[ints[k]!]!, strings[ints[k + 1]!]!, strings[ints[k + 2]!]!, numbers[n]!, numbers[n + 1]!, numbers[n + 2]!, ints[k + 5] === 1 ? numbers[n + 3] : undefined, strings[ints[k + 3]!]!, strings[ints[k + 4]!]!);
    }
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
