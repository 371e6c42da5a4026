import type { AnyActorRef } from 'xstate';
import { SharedState } from './SharedState.js';
import { WorkflowContext, type Journal } from './WorkflowContext.js';
import type { WorkflowEvent } from './WorkflowEvent.js';
import { systemClock, type Clock } from './RunOptions.js';
import type { SwitchboardError } from '../errors/SwitchboardError.js';

/** Distributes an event type over a union, so each member loses its envelope separately. */
type WithoutEnvelope<T> = T extends unknown ? Omit<T, 'runId' | 'seq' | 'at'> : never;

/** An event before the runtime stamps its envelope. */
export type PendingEvent = WithoutEnvelope<WorkflowEvent>;

/**
 * What a run needs that cannot live in the JSON machine context: the live state map, the session,
 * the event sink, the clock and the thrown errors (with their causes). One per machine actor.
 */
export class RunRuntime {
  readonly session: unknown;
  readonly streaming: boolean;
  readonly clock: Clock;
  /** The real error behind a `failed` run; the context only holds its JSON form. */
  error: SwitchboardError | null = null;
  /** Side-effect journal of a stored run. */
  readonly journal: Journal | null;
  /** Resolves when pending checkpoint writes are done; nodes wait for it before they start. */
  barrier: () => Promise<void> = () => Promise.resolve();
  #listeners: Array<(event: WorkflowEvent) => void> = [];
  #seq: number;
  #context: WorkflowContext | null = null;
  #boundTo: Record<string, unknown> | null = null;

  constructor(options: {
    session?: unknown;
    streaming?: boolean;
    clock?: Clock;
    onEvent?: (event: WorkflowEvent) => void;
    /** The last sequence number already used (non-zero when a run continues). */
    seq?: number;
    journal?: Journal | null;
  } = {}) {
    this.journal = options.journal ?? null;
    this.session = options.session;
    this.streaming = options.streaming ?? false;
    this.clock = options.clock ?? systemClock;
    if (options.onEvent !== undefined) this.#listeners.push(options.onEvent);
    this.#seq = options.seq ?? 0;
  }

  /** The last sequence number used. */
  get seq(): number {
    return this.#seq;
  }

  /** True when someone listens, so callers can skip building events nobody reads. */
  get listening(): boolean {
    return this.#listeners.length > 0;
  }

  /** Adds an event listener (the store's event log, a trace recorder) that runs before the others. */
  addListener(listener: (event: WorkflowEvent) => void): void {
    this.#listeners.unshift(listener);
  }

  /** Removes a listener added with {@link addListener}. */
  removeListener(listener: (event: WorkflowEvent) => void): void {
    this.#listeners = this.#listeners.filter((l) => l !== listener);
  }

  /** Stamps the envelope on an event and delivers it. */
  emit(runId: string, event: PendingEvent): void {
    if (this.#listeners.length === 0) return;
    this.#seq += 1;
    const stamped = { ...event, runId, seq: this.#seq, at: this.clock.now() } as WorkflowEvent;
    for (const listener of this.#listeners) listener(stamped);
  }

  /**
   * The context for the machine's current state object. The live map is built from the JSON state
   * once per actor (or after a restore), then kept in step with it change by change.
   */
  bind(runId: string, state: Record<string, unknown>): WorkflowContext {
    if (this.#context === null || this.#boundTo !== state) {
      this.#context = new WorkflowContext({ runId, state: SharedState.fromObject(state), session: this.session, journal: this.journal });
      this.#boundTo = state;
    }
    return this.#context;
  }

  /** The bound context, if any node has run or `bind` was called. */
  get context(): WorkflowContext | null {
    return this.#context;
  }
}

const runtimes = new WeakMap<AnyActorRef, RunRuntime>();
let pending: RunRuntime | null = null;

/**
 * Creates a graph actor with its runtime attached from the very first transition: the initial
 * state's entry actions run inside `createActor`, before the caller could attach anything.
 */
export function createWithRuntime<T extends AnyActorRef>(runtime: RunRuntime, create: () => T): T {
  pending = runtime;
  try {
    const actor = create();
    runtimes.set(actor, runtime);
    return actor;
  } finally {
    pending = null;
  }
}

/** Called by the machine's context factory: adopts the runtime handed over by {@link createWithRuntime}. */
export function adoptPendingRuntime(self: AnyActorRef): void {
  if (pending !== null) runtimes.set(self, pending);
}

/** The runtime of a machine actor; an actor created directly with `createActor` gets a quiet default. */
export function runtimeOf(actor: AnyActorRef): RunRuntime {
  let runtime = runtimes.get(actor);
  if (runtime === undefined) {
    runtime = new RunRuntime();
    runtimes.set(actor, runtime);
  }
  return runtime;
}
