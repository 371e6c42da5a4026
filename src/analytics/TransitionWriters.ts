import type { BatchMessage } from './TransitionBatch.js';
import { TransitionFileWriter } from './TransitionFileWriter.js';
import { TransitionLineEncoder } from './TransitionLineEncoder.js';

/** One JSONL recorder's batch (or its file's closing, `batch` null) for the writer thread, in the order sent. */
export interface WriterMessage {
  /** The message's number, counted across the process (the thread reports the last one done). */
  seq: number;
  /** The recorder's number in the process. */
  id: number;
  file: string;
  /** True until the recorder's first batch: the file's folder is made and a line left cut short is ended first. */
  first: boolean;
  batch: BatchMessage | null;
  /** Leave the file open for the recorder's next batch (its tables are kept); false closes it and forgets them. */
  keepOpen: boolean;
}

/**
 * The writing side of every JSONL transition recorder of a process: a `TransitionFileWriter` per
 * recorder while its file is open (forgotten when it is closed), all sharing one line encoder. The
 * writer thread runs one; a process that could not start the thread runs one in its own thread.
 */
export class TransitionWriters {
  readonly #writers = new Map<number, TransitionFileWriter>();
  /** Recorders stopped by a write error: their later batches are dropped. */
  readonly #failed = new Set<number>();
  readonly #encoder = new TransitionLineEncoder();

  /** Writes the message's batch; returns the write error that stopped its recorder now, if one did. */
  handle(message: WriterMessage): Error | null {
    const { id } = message;
    if (this.#failed.has(id)) return null;
    let writer = this.#writers.get(id);
    if (writer === undefined) {
      writer = new TransitionFileWriter(message.file, this.#encoder, !message.first);
      this.#writers.set(id, writer);
    }
    let error: Error | null;
    try {
      error = writer.write(message.batch, message.keepOpen);
    } catch (thrown) {
      // Not an I/O error (those are returned): a batch it could not read. The recorder stops all
      // the same, and the lines of it encoded so far are dropped (the next writer shares the encoder).
      this.#encoder.take();
      writer.close();
      error = thrown instanceof Error ? thrown : new Error(String(thrown));
    }
    if (error !== null) this.#failed.add(id);
    if (error !== null || !message.keepOpen) this.#writers.delete(id);
    return error;
  }
}
