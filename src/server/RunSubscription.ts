import { ownerMayBeAlive } from '../graph/durable/owner.js';
import { FINISHED_STATUSES, type RunRecord, type RunStore, type StoredRunStatus } from '../persistence/RunStore.js';
import { OutEvent } from './OutEvent.js';

/** Where a subscription reads a run's events: the store, and the in-memory log of a leg running here. */
export interface EventSources {
  readonly store: RunStore;
  /** The events of the leg this process is executing for the run, or undefined. */
  liveLog(runId: string): readonly OutEvent[] | undefined;
}

/** What a subscriber is told. */
export interface SubscriberCallbacks {
  /**
   * Each event once, in `seq` order. Returns false when the subscriber cannot take more for now:
   * the subscription then pauses until {@link RunSubscription.resume} is called.
   */
  deliver(event: OutEvent): boolean;
  /** The run finished and every event was delivered; nothing follows. */
  finished(status: StoredRunStatus): void;
  /** Reading the store failed; the subscription stops. */
  failed(error: unknown): void;
}

/**
 * True when a finished run's leg may still store events: a run cancelled while it executed keeps
 * its owner until that leg has written its last ones (see `cancelRun`), or its lease runs out.
 */
function stillWriting(record: RunRecord): boolean {
  return record.owner !== null && (record.leaseExpiresAt ?? 0) > Date.now() && ownerMayBeAlive(record.owner);
}

/** How many stored events one read of the store returns at most (a long history is read in pages). */
const PAGE = 200;

/**
 * One subscriber's view of a run's events: every event after `afterSeq` exactly once, in order,
 * whether it comes from the store (earlier legs, other processes), the in-memory log of a leg
 * running here (events not yet checkpointed), or live. Events are held until the one before them
 * was delivered; a gap that neither the store nor the log can fill after a sync is skipped rather
 * than stalling the stream.
 *
 * A subscriber that cannot keep up (its `deliver` returned false) is paused: live events pass it
 * by and it reads nothing more; on {@link resume} it delivers what it had already read (at most one
 * page of stored events), then what it missed from the live log and the store, from its cursor,
 * and goes on live. So a slow subscriber never holds up the others, and costs at most its
 * consumer's buffer and one page.
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
  #paused = false;
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

  /** True while the subscriber's consumer is full (see {@link resume}). */
  get paused(): boolean {
    return this.#paused;
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
    if (this.#closed || this.#paused || event.seq <= this.#cursor) return;
    if (event.seq === this.#cursor + 1 && this.#pending.size === 0) {
      // The usual case: the next event, live, nothing held back.
      this.#deliver(event);
      return;
    }
    this.#pending.set(event.seq, event);
    this.#drain();
  }

  /** The consumer can take events again: catch up from the cursor (no-op unless paused). */
  resume(): void {
    if (!this.#paused || this.#closed) return;
    this.#paused = false;
    // What was read before the pause first; `drain` reads on by itself when it meets a gap.
    if (this.#pending.size > 0) this.#drain();
    if (!this.#paused && !this.#closed && this.#pending.size === 0) void this.sync();
  }

  /**
   * Reads what the store and the live log hold after the cursor and delivers it; ends the
   * subscription when the run has finished and no leg runs here. Concurrent calls coalesce; a
   * paused subscription reads nothing until it is resumed.
   */
  async sync(): Promise<void> {
    if (this.#closed || this.#paused) return;
    if (this.#syncing) {
      this.#again = true;
      return;
    }
    this.#syncing = true;
    // Whether the run was already seen finished in this sync: its last events may have been
    // committed with that status after they were read, so the events are read once more first.
    let finishedSeen = false;
    try {
      do {
        this.#again = false;
        // The live log is read before the store: an event stored in between is in one or the other.
        const live = this.#sources.liveLog(this.runId);
        for (const event of live ?? []) if (event.seq > this.#cursor) this.#pending.set(event.seq, event);
        // A live log that starts at or before the next event holds everything the store could add.
        const covered = live !== undefined && live.length > 0 && live[0]!.seq <= this.#cursor + 1;
        const stored = covered ? [] : await this.#sources.store.listEvents(this.runId, { afterSeq: this.#cursor, limit: PAGE });
        if (this.#closed || this.#paused) return;
        for (const event of stored) if (event.seq > this.#cursor && !this.#pending.has(event.seq)) this.#pending.set(event.seq, OutEvent.stored(event));
        // A full page may have more behind it: only a gap before its last event is known to be unfillable.
        const more = stored.length === PAGE;
        this.#drain(more ? stored[stored.length - 1]!.seq : Infinity);
        if (this.#closed || this.#paused) return;
        if (more) {
          this.#again = true;
          continue;
        }
        if (live !== undefined || this.#sources.liveLog(this.runId) !== undefined) continue;
        // No leg runs here: the stored status says whether anything can still follow.
        const record = await this.#sources.store.getRun(this.runId);
        if (this.#closed || this.#paused) return;
        if (record !== null && FINISHED_STATUSES.has(record.status) && !this.#again && !stillWriting(record)) {
          if (!finishedSeen) {
            finishedSeen = true;
            this.#again = true;
            continue;
          }
          this.#finish(record.status);
        }
      } while (this.#again && !this.#closed && !this.#paused);
    } catch (error) {
      if (!this.#closed) {
        this.close();
        this.#callbacks.failed(error);
      }
    } finally {
      this.#syncing = false;
      // Resumed while this sync was reading: catch up now.
      if (this.#again && !this.#closed && !this.#paused) void this.sync();
    }
  }

  /** Delivers what follows the cursor; a gap whose far side is at most `skipUpTo` is skipped (the store was read past it). */
  #drain(skipUpTo = -Infinity): void {
    while (!this.#closed && !this.#paused) {
      const next = this.#pending.get(this.#cursor + 1);
      if (next !== undefined) {
        this.#pending.delete(next.seq);
        this.#deliver(next);
        continue;
      }
      if (this.#pending.size === 0) break;
      const after = Math.min(...this.#pending.keys());
      if (after > skipUpTo) break;
      // Nothing can fill the gap (events lost by a process that died): skip it.
      this.#cursor = after - 1;
    }
    if (skipUpTo === -Infinity && !this.#closed && !this.#paused && this.#pending.size > 0) void this.sync();
  }

  #deliver(event: OutEvent): void {
    this.#cursor = event.seq;
    const accepted = this.#callbacks.deliver(event);
    const status = event.finalStatus;
    if (status !== null) this.#finish(status);
    else if (!accepted && !this.#closed) this.#pause();
  }

  #pause(): void {
    // Held events (one page at most) stay for the resume; live ones are read from the log then.
    this.#paused = true;
  }

  #finish(status: StoredRunStatus): void {
    if (this.#closed) return;
    this.close();
    this.#callbacks.finished(status);
  }
}
