import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { TransitionWriters, type WriterMessage } from './TransitionWriters.js';

/** Slots of the writer thread's shared state (an `Int32Array` on a `SharedArrayBuffer`). */
export const WRITER_STATUS = 0;
/** The `seq` of the last message the thread has written. */
export const WRITER_DONE = 1;
/** What {@link WRITER_STATUS} holds. */
export const WRITER_STARTING = 0;
export const WRITER_READY = 1;
export const WRITER_FAILED = 2;

/** What the writer thread is started with. */
export interface WriterThreadData {
  state: Int32Array;
  /** Where write errors go, one message `{ id, name, message, code }` each, before their batch counts as done. */
  errors: MessagePort;
}

/**
 * The writer thread's work (see `TransitionWriterThread`): takes the JSONL recorders' messages in
 * order, writes each, reports a write error on the `errors` port and then the message's `seq` as
 * done in the shared state (waking a thread that waits on it).
 */
export function serveTransitionWriters(): void {
  const { state, errors } = workerData as WriterThreadData;
  const writers = new TransitionWriters();
  parentPort!.on('message', (message: WriterMessage) => {
    const error = writers.handle(message);
    if (error !== null) {
      const { name, message: text } = error;
      const code = (error as NodeJS.ErrnoException).code;
      errors.postMessage({ id: message.id, name, message: text, code });
    }
    Atomics.store(state, WRITER_DONE, message.seq);
    Atomics.notify(state, WRITER_DONE);
  });
  Atomics.store(state, WRITER_STATUS, WRITER_READY);
  Atomics.notify(state, WRITER_STATUS);
  parentPort!.postMessage('ready');
}
