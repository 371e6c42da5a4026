import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { WRITER_DONE, WRITER_FAILED, WRITER_STARTING, WRITER_STATUS } from './serveTransitionWriters.js';
import { TransitionWriters, type WriterMessage } from './TransitionWriters.js';

/** How long {@link TransitionWriterThread.settle} waits for the thread to start, or to write what it was sent, before giving up (ms). */
const PATIENCE_MS = 60_000;

/** What a recorder is told when the thread stopped (or stopped answering) with lines of it not written. */
const stopped = (why: string) => new Error(`the transition writer thread ${why} before writing every line sent to it; those lines may be lost, and the recorder stops`);

/**
 * The thread that encodes and appends the lines of every JSONL transition recorder of the process
 * (one for all, started when the first line is sent, not keeping the process alive), so a recorded run's
 * own thread only keeps each transition's fields (`TransitionBatch`). Messages are written in
 * the order sent; {@link settle} waits, blocking, until all sent so far are written, which is how a
 * recorder's file holds a run complete when the run ends. A process that cannot start the thread
 * (a bundle that left its module out) writes in its own thread instead, the same lines.
 */
export class TransitionWriterThread {
  static #shared: TransitionWriterThread | null = null;

  /** The process's writer thread, started at the first call. */
  static shared(): TransitionWriterThread {
    return (TransitionWriterThread.#shared ??= new TransitionWriterThread());
  }

  readonly #state = new Int32Array(new SharedArrayBuffer(8));
  readonly #errors: MessagePort;
  readonly #entry: string;
  #worker: Worker | null = null;
  /** Writes in this thread, once the writer thread could not start. */
  #local: TransitionWriters | null = null;
  /** Messages sent before the thread was ready (not yet handed over). */
  #pending: WriterMessage[] = [];
  #seq = 0;
  /** Where each recorder's write error goes, with the last of its messages handed to the thread, while it has sent lines not known to be written. */
  readonly #sent = new Map<number, { onError: (error: Error) => void; posted: number }>();

  /**
   * A writer thread on the module at `entry` (by default `serveTransitionWriters`' beside this one);
   * recorders share {@link shared}'s.
   */
  constructor(entry: string = defaultEntry()) {
    const channel = new MessageChannel();
    this.#errors = channel.port1;
    this.#errors.unref();
    this.#entry = entry;
    try {
      this.#worker = startWorker(this.#state, channel.port2, entry);
      // A thread that dies (its module failed to load, or worse) says so to a settle() waiting on it.
      this.#worker.on('error', (error) => this.#fail(`stopped: ${error.message}`));
      this.#worker.on('exit', () => this.#fail('stopped'));
      // Ready (its only message): what was sent while it started is handed over now, not with the next batch.
      this.#worker.on('message', () => {
        if (this.#pending.length !== 0 && Atomics.load(this.#state, WRITER_STATUS) !== WRITER_STARTING) this.#handOver();
      });
      // After the listeners (adding one refers the thread again): the thread does not keep the process alive.
      this.#worker.unref();
      // A process that ends (or calls process.exit()) while runs go on keeps the full batches it
      // already handed over, as when they were written at once: the thread is given time to write them.
      process.once('exit', () => {
        if (this.#local === null && Atomics.load(this.#state, WRITER_DONE) < this.#seq) this.settle();
      });
    } catch (error) {
      this.#fail(`could not start: ${(error as Error).message}`);
    }
  }

  static #ids = 0;

  /** A new recorder's number (the same on any thread of the process). */
  static nextId(): number {
    return ++TransitionWriterThread.#ids;
  }

  /** Sends a recorder's batch (or its file's closing) to be written; a write error goes to `onError`, at the latest on {@link settle}. */
  send(message: Omit<WriterMessage, 'seq'>, onError: (error: Error) => void): void {
    const full = message as WriterMessage;
    full.seq = ++this.#seq;
    const sent = this.#sent.get(full.id);
    if (sent === undefined) this.#sent.set(full.id, { onError, posted: 0 });
    else sent.onError = onError;
    if (Atomics.load(this.#state, WRITER_STATUS) === WRITER_STARTING) {
      this.#pending.push(full);
      return;
    }
    if (this.#pending.length !== 0) this.#handOver();
    this.#post(full);
  }

  /** Waits until every message sent so far is written, and hands out the write errors they met. */
  settle(): void {
    if (this.#pending.length !== 0) {
      // A thread that never got ready: the messages kept meanwhile are written here instead.
      if (Atomics.load(this.#state, WRITER_STATUS) === WRITER_STARTING && !this.#await(WRITER_STATUS, (status) => status !== WRITER_STARTING)) {
        this.#fail(`did not start within ${PATIENCE_MS / 1000} s`);
      }
      this.#handOver();
    }
    const last = this.#seq;
    if (this.#local === null && !this.#await(WRITER_DONE, (done) => done >= last)) {
      // The thread is stuck or gone: the recorders waiting on it are told, and this thread writes from now on.
      this.#fail(`did not answer within ${PATIENCE_MS / 1000} s`);
    }
    this.#drainErrors();
    this.#sent.clear();
  }

  /** Hands the messages kept while the thread started to it, or writes them here when it did not start. */
  #handOver(): void {
    const pending = this.#pending;
    this.#pending = [];
    for (const message of pending) this.#post(message);
  }

  #post(message: WriterMessage): void {
    if (this.#local === null && Atomics.load(this.#state, WRITER_STATUS) === WRITER_FAILED) this.#fail(`could not load ${this.#entry}`);
    if (this.#local !== null) {
      const error = this.#local.handle(message);
      if (error !== null) this.#sent.get(message.id)?.onError(error);
      return;
    }
    const batch = message.batch;
    const sent = this.#sent.get(message.id);
    if (sent !== undefined) sent.posted = message.seq;
    this.#worker!.postMessage(message, batch === null ? [] : [batch.ints.buffer as ArrayBuffer, batch.numbers.buffer as ArrayBuffer]);
  }

  /** Blocks until `done` holds for the value in `slot`, waking when the thread changes it; false when it gave up (or the thread failed meanwhile). */
  #await(slot: number, done: (value: number) => boolean): boolean {
    const until = Date.now() + PATIENCE_MS;
    for (;;) {
      // The value is read once, tested, and waited on: a change made after the read ends the wait at once.
      const value = Atomics.load(this.#state, slot);
      if (done(value)) return true;
      if (Atomics.load(this.#state, WRITER_STATUS) === WRITER_FAILED) return false;
      const left = until - Date.now();
      if (left <= 0) return false;
      Atomics.wait(this.#state, slot, value, Math.min(left, 100));
    }
  }

  #drainErrors(): void {
    for (let got = receiveMessageOnPort(this.#errors); got !== undefined; got = receiveMessageOnPort(this.#errors)) {
      const { id, name, message, code } = got.message as { id: number; name: string; message: string; code?: string };
      const error = Object.assign(new Error(message), code === undefined ? {} : { code });
      error.name = name;
      this.#sent.get(id)?.onError(error);
    }
  }

  /**
   * From now on this thread writes (the writer thread did not start, or stopped), and the process
   * is told once, as a warning (code SWITCHBOARD_TRANSITION_WRITER).
   */
  #fail(why: string): void {
    if (this.#local !== null) return;
    this.#local = new TransitionWriters();
    // Recorders with messages the thread had not written are told so, and stop (the thread's file
    // tables went with it: their next batch could not be written here either).
    const done = Atomics.load(this.#state, WRITER_DONE);
    for (const { onError, posted } of this.#sent.values()) if (posted > done) onError(stopped(why));
    process.emitWarning(`The JSONL transition writer thread ${why}; transition lines are written in the run's own thread from now on.`, { code: 'SWITCHBOARD_TRANSITION_WRITER' });
    this.#drainErrors();
    Atomics.store(this.#state, WRITER_STATUS, WRITER_FAILED);
    const worker = this.#worker;
    this.#worker = null;
    void worker?.terminate();
  }
}

/** `serveTransitionWriters`' module beside this one: the compiled `.js`, or the `.ts` when the package runs from its sources (its tests). */
function defaultEntry(): string {
  return new URL(`./serveTransitionWriters.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;
}

/** Starts the writer thread on `entry`, through tsx when it is TypeScript. */
function startWorker(state: Int32Array, errors: MessagePort, entry: string): Worker {
  const tsx = entry.endsWith('.ts') ? pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href : null;
  // Read as a script or, when the process runs with --input-type=module, as a module: only import().
  const code = `
    import('node:worker_threads').then(async ({ workerData }) => {
      try {
        if (workerData.tsx !== null) (await import(workerData.tsx)).register();
        (await import(workerData.entry)).serveTransitionWriters();
      } catch {
        Atomics.store(workerData.state, ${WRITER_STATUS}, ${WRITER_FAILED});
        Atomics.notify(workerData.state, ${WRITER_STATUS});
      }
    });`;
  return new Worker(code, { eval: true, workerData: { state, errors, entry, tsx }, transferList: [errors], stdout: false, stderr: false });
}
