import type { Actor } from 'xstate';
import type { RunPatch, RunRecord, RunStore, StoredEvent, StoredRunStatus } from '../../persistence/RunStore.js';
import { scrubString } from '../../trace/redact.js';
import type { GraphMachine } from '../compileMachine.js';
import type { Clock } from '../RunOptions.js';
import type { TraceEvent } from '../../trace/TraceEvent.js';
import type { TraceRecorder } from '../../trace/TraceRecorder.js';
import { toStoredEvent } from './toStoredEvent.js';
import { takeSnapshot, typedSnapshotFailure } from './takeSnapshot.js';

/** Options for a {@link Checkpointer}. */
export interface CheckpointerOptions {
  owner: string;
  leaseMs: number;
  clock: Clock;
  secrets: readonly string[];
  /** Called once when a write loses its compare-and-set (the run was cancelled or taken over elsewhere). */
  onFenced: (current: RunRecord | null) => void;
  /** Called once when a write fails (a value too large or not JSON, a store that is down): the run should stop. */
  onFailed?: (error: unknown) => void;
}

/**
 * Writes a run's progress to its store: after every macrostep the persisted snapshot and the events
 * emitted since the last write go in one compare-and-set transaction. It is the run store's event
 * log as a {@link TraceRecorder}: it gets the same redacted events as every other recorder. Writes are chained in order;
 * nodes wait on {@link barrier} so a step's checkpoint is durable before the next node starts. While
 * the run lives it renews its lease.
 */
export class Checkpointer implements TraceRecorder {
  readonly #store: RunStore;
  readonly #options: CheckpointerOptions;
  readonly #runId: string;
  #version: number;
  #events: StoredEvent[] = [];
  #lastSeq: number;
  #chain: Promise<void> = Promise.resolve();
  #failure: unknown = null;
  #fenced = false;
  /** The run was cancelled by someone else: only events are still written. */
  #eventsOnly = false;
  #timer: NodeJS.Timeout;

  constructor(store: RunStore, record: RunRecord, options: CheckpointerOptions) {
    this.#store = store;
    this.#options = options;
    this.#runId = record.runId;
    this.#version = record.version;
    this.#lastSeq = record.lastSeq;
    this.#timer = setInterval(() => void this.#renew(), Math.max(50, Math.floor(options.leaseMs / 3)));
    this.#timer.unref();
  }

  /** True once a write lost its compare-and-set. */
  get fenced(): boolean {
    return this.#fenced;
  }

  /** The first write error, if any (for example a state value that is not JSON). */
  get failure(): unknown {
    return this.#failure;
  }

  /** Buffers a (redacted) event for the next write, in this run's log. */
  record(event: TraceEvent): void {
    // A specialist's events (its own runId in the data) take the run's next seq: they belong in the
    // run's log, so a replay of the run sees its specialists too.
    this.#events.push({ ...toStoredEvent(event), runId: this.#runId });
    this.#lastSeq = event.seq;
  }

  /** Resolves when every write queued so far is done (one microtask later, so the current step's is included). */
  readonly barrier = (): Promise<void> => Promise.resolve().then(() => this.#chain);

  /**
   * Queues a checkpoint of the actor's current snapshot. Throws synchronously, as a typed error, when
   * the state cannot be stored: `not_json` (a Map, a class instance, a cycle…) naming its key, or
   * `value_too_large` for a value nested too deeply.
   */
  checkpoint(actor: Actor<GraphMachine>): void {
    const context = actor.getSnapshot().context;
    const secrets = this.#options.secrets;
    const stored = takeSnapshot(actor, secrets);
    const status: StoredRunStatus = context.status;
    const live = status === 'running';
    const patch = typedSnapshotFailure(actor, () => {
      const text = (value: string | null | undefined) => (value === null || value === undefined ? null : scrubString(value, secrets));
      return {
        status,
        snapshot: stored,
        waitReason: text(context.waiting?.reason),
        outputText: text(context.result?.outputText),
        error: context.error === null ? null : { ...context.error, message: scrubString(context.error.message, secrets) },
        owner: live ? this.#options.owner : null,
        leaseExpiresAt: live ? this.#options.clock.now() + this.#options.leaseMs : null,
      };
    });
    this.#enqueue(patch);
  }

  /** Writes the remaining events (run.completed) and stops renewing the lease. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#events.length > 0) this.#enqueue({});
    await this.#chain;
  }

  #enqueue(patch: RunPatch): void {
    const events = this.#events;
    this.#events = [];
    const lastSeq = this.#lastSeq;
    this.#chain = this.#chain.then(async () => {
      if (this.#fenced || this.#failure !== null) return;
      try {
        let next = await this.#store.updateRun(this.#runId, this.#version, this.#eventsOnly ? { lastSeq } : { ...patch, lastSeq }, events);
        if (next === null) {
          const current = await this.#store.getRun(this.#runId);
          if (current?.status === 'cancelled' && !this.#eventsOnly) {
            // Cancelled by `cancelRun` (here or in another process): the run stops, but its last
            // events (node.cancelled, run.completed) still go to the log, and nothing else changes.
            this.#eventsOnly = true;
            clearInterval(this.#timer);
            this.#options.onFenced(current);
            next = await this.#store.updateRun(this.#runId, current.version, { lastSeq }, events);
          }
          if (next === null) {
            this.#fenced = true;
            clearInterval(this.#timer);
            if (!this.#eventsOnly) this.#options.onFenced(current);
            return;
          }
        }
        this.#version = next;
      } catch (error) {
        this.#failure = error;
        clearInterval(this.#timer);
        this.#options.onFailed?.(error);
      }
    });
  }

  async #renew(): Promise<void> {
    if (this.#fenced || this.#eventsOnly) return;
    await this.#store.renewLease(this.#runId, this.#options.owner, this.#options.clock.now() + this.#options.leaseMs).catch(() => false);
  }
}
