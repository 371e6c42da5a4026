import { FINISHED_STATUSES, type RunStore, type StoredRunStatus } from '../persistence/RunStore.js';
import { finalStatusOf, storedOutEvent, type OutEvent } from './OutEvent.js';

/** Where a subscription reads a run's events: the store, and the in-memory log of a leg running here. */
export interface EventSources {
  readonly store: RunStore;
  /** The events of the leg this process is executing for the run, or undefined. */
  liveLog(runId: string): readonly OutEvent[] | undefined;
}

/** What a subscriber is told. */
export interface SubscriberCallbacks {
  /** Each event once, in `seq` order. */
  deliver(event: OutEvent): void;
  /** The run finished and every event was delivered; nothing follows. */
  finished(status: StoredRunStatus): void;
  /** Reading the store failed; the subscription stops. */
  failed(error: unknown): void;
}

/**
 * One subscriber's view of a run's events: every event after `afterSeq` exactly once, in order,
 * whether it comes from the store (earlier legs, other processes), the in-memory log of a leg
 * running here (events not yet checkpointed), or live. Events are held until the one before them
 * was delivered; a gap that neither the store nor the log can fill after a sync is skipped rather
 * than stalling the stream.
 */
export class RunSubscription {
  readonly runId: string;
  #cursor: number;
  readonly #pending = new Map<number, OutEvent>();
  readonly #sources: EventSources;
  readonly #callbacks: SubscriberCallbacks;
  #syncing = false;
  #again = false;
  #closed = false;
  readonly #onClose: (() => void) | undefined;

  constructor(runId: string, afterSeq: number, sources: EventSources, callbacks: SubscriberCallbacks, onClose?: () => void) {
    this.runId = runId;
    this.#cursor = afterSeq;
    this.#sources = sources;
    this.#callbacks = callbacks;
    this.#onClose = onClose;
  }

  /** The last delivered `seq`. */
  get cursor(): number {
    return this.#cursor;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Stops delivering (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending.clear();
    this.#onClose?.();
  }

  /** A live event. */
  offer(event: OutEvent): void {
    if (this.#closed || event.seq <= this.#cursor) return;
    this.#pending.set(event.seq, event);
    this.#drain(false);
  }

  /**
   * Reads what the store and the live log hold after the cursor and delivers it; ends the
   * subscription when the run has finished and no leg runs here. Concurrent calls coalesce.
   */
  async sync(): Promise<void> {
    if (this.#closed) return;
    if (this.#syncing) {
      this.#again = true;
      return;
    }
    this.#syncing = true;
    try {
      do {
        this.#again = false;
        // The live log is read before the store: an event stored in between is in one or the other.
        const live = this.#sources.liveLog(this.runId);
        for (const event of live ?? []) if (event.seq > this.#cursor) this.#pending.set(event.seq, event);
        const stored = await this.#sources.store.listEvents(this.runId, { afterSeq: this.#cursor });
        if (this.#closed) return;
        for (const event of stored) if (event.seq > this.#cursor && !this.#pending.has(event.seq)) this.#pending.set(event.seq, storedOutEvent(event));
        this.#drain(true);
        if (this.#closed || live !== undefined || this.#sources.liveLog(this.runId) !== undefined) continue;
        // No leg runs here: the stored status says whether anything can still follow.
        const record = await this.#sources.store.getRun(this.runId);
        if (this.#closed) return;
        if (record !== null && FINISHED_STATUSES.has(record.status) && !this.#again) this.#finish(record.status);
      } while (this.#again && !this.#closed);
    } catch (error) {
      if (!this.#closed) {
        this.close();
        this.#callbacks.failed(error);
      }
    } finally {
      this.#syncing = false;
    }
  }

  #drain(afterSync: boolean): void {
    while (!this.#closed) {
      const next = this.#pending.get(this.#cursor + 1);
      if (next !== undefined) {
        this.#pending.delete(next.seq);
        this.#cursor = next.seq;
        this.#callbacks.deliver(next);
        const status = finalStatusOf(next);
        if (status !== null) this.#finish(status);
        continue;
      }
      if (!afterSync || this.#pending.size === 0) break;
      // Nothing can fill the gap (events lost by a process that died): skip it.
      this.#cursor = Math.min(...this.#pending.keys()) - 1;
    }
    if (!afterSync && !this.#closed && this.#pending.size > 0) void this.sync();
  }

  #finish(status: StoredRunStatus): void {
    if (this.#closed) return;
    this.close();
    this.#callbacks.finished(status);
  }
}
