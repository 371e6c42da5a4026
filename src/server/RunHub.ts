import type { RunStore } from '../persistence/RunStore.js';
import type { TraceRecorder } from '../trace/TraceRecorder.js';
import { OutEvent } from './OutEvent.js';
import { RunSubscription, type EventSources, type SubscriberCallbacks } from './RunSubscription.js';

/** The live log of a leg keeps at least this many of its latest events. */
const LOG_KEEP = 1024;
/** ...and is trimmed once it holds this many more: the older ones go if the store holds them. */
const LOG_TRIM_EVERY = 1024;

/** Options for {@link RunHub}. */
export interface RunHubOptions {
  /** How often a subscriber of a run that no leg here executes reads the store (default 1000 ms). */
  pollMs?: number;
}

/**
 * The server's live view of runs: the events of every leg executing in this process (kept in
 * memory until the leg ends or the store holds them, so a subscriber never misses one that is not
 * checkpointed yet) and the subscribers of each run. A subscriber of a run executed elsewhere
 * (another process, the CLI) reads the store every `pollMs`.
 *
 * The hub is a recorder of the legs it attaches to: it gets each event as the run redacted it once
 * for all its recorders (the store's event log among them), wraps it in one {@link OutEvent} and
 * offers that same object to every subscriber, so the event is serialised once (its shared frame)
 * however many subscribers there are.
 */
export class RunHub implements EventSources {
  readonly store: RunStore;
  readonly #pollMs: number;
  readonly #logs = new Map<string, OutEvent[]>();
  readonly #subscribers = new Map<string, Set<RunSubscription>>();

  constructor(store: RunStore, options: RunHubOptions = {}) {
    this.store = store;
    this.#pollMs = options.pollMs ?? 1000;
  }

  liveLog(runId: string): readonly OutEvent[] | undefined {
    return this.#logs.get(runId);
  }

  /** True while a leg of the run executes in this process. */
  isLive(runId: string): boolean {
    return this.#logs.has(runId);
  }

  /** Number of open subscriptions (all runs). */
  get subscriberCount(): number {
    let n = 0;
    for (const set of this.#subscribers.values()) n += set.size;
    return n;
  }

  /** Open subscriptions paused because their client reads slower than events come (all runs). */
  get pausedCount(): number {
    let n = 0;
    for (const set of this.#subscribers.values()) for (const subscription of set) if (subscription.paused) n++;
    return n;
  }

  /**
   * Starts the in-memory log of a leg executing here; returns the recorder to pass in the leg's
   * `recorders`. The log holds the events the store may not have yet: once it is
   * {@link LOG_TRIM_EVERY} events longer than {@link LOG_KEEP}, the events before its last
   * {@link LOG_KEEP} are dropped if the store holds them (its commits are in `seq` order, so
   * holding one event means holding every one before it). A subscriber behind them reads them from
   * the store, as it does for an earlier leg; a long leg no longer keeps every event it emitted.
   */
  attach(runId: string): TraceRecorder {
    const log: OutEvent[] = [];
    this.#logs.set(runId, log);
    let trimming = false;
    const trim = async () => {
      trimming = true;
      try {
        const mark = log[log.length - LOG_KEEP - 1]!.seq;
        const [held] = await this.store.listEvents(runId, { afterSeq: mark - 1, limit: 1 });
        // Events before the mark that are live only (token deltas) are never stored: they go too.
        if (held === undefined || held.seq < mark) return;
        let end = 0;
        while (end < log.length && log[end]!.seq <= mark) end++;
        log.splice(0, end);
      } catch {
        // The store could not say: the events stay, and the next trim asks again.
      } finally {
        trimming = false;
      }
    };
    return {
      record: (event) => {
        const out = OutEvent.live(event);
        log.push(out);
        const subscribers = this.#subscribers.get(runId);
        if (subscribers !== undefined) for (const subscription of subscribers) subscription.offer(out);
        if (!trimming && log.length >= LOG_KEEP + LOG_TRIM_EVERY && this.#logs.get(runId) === log) void trim();
      },
    };
  }

  /**
   * The leg ended and its events are stored (a leg cancelled while a node was in flight stores its
   * last events too): the in-memory log is dropped and the subscribers re-read the store.
   */
  async detach(runId: string): Promise<void> {
    this.#logs.delete(runId);
    this.poke(runId);
  }

  /** Tells the run's subscribers to re-read the store (after a cancel, or a change made elsewhere). */
  poke(runId: string): void {
    for (const subscription of this.#subscribers.get(runId) ?? []) void subscription.sync();
  }

  /** Subscribes to a run's events after `afterSeq`; the callbacks get every event once, in order. */
  subscribe(runId: string, afterSeq: number, callbacks: SubscriberCallbacks): RunSubscription {
    let set = this.#subscribers.get(runId);
    if (set === undefined) this.#subscribers.set(runId, (set = new Set()));
    let timer: NodeJS.Timeout | undefined;
    const subscription = new RunSubscription(runId, afterSeq, this, callbacks, () => {
      clearInterval(timer);
      set.delete(subscription);
      if (set.size === 0) this.#subscribers.delete(runId);
    });
    set.add(subscription);
    timer = setInterval(() => {
      if (!this.isLive(runId)) void subscription.sync();
    }, this.#pollMs);
    timer.unref();
    void subscription.sync();
    return subscription;
  }
}
