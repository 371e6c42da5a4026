import type { NodeEmit, NodeEmittedEvent } from './AgentNode.js';
import { SharedState } from './SharedState.js';

/** Where side effects record their results, keyed by (run, step, key); backed by the run store. */
export interface Journal {
  get(runId: string, step: number, key: string): Promise<{ value: unknown } | undefined>;
  put(runId: string, step: number, key: string, value: unknown): Promise<void>;
}

/**
 * What every node, router and condition of a run receives: the shared state map, the run id, the
 * abort signal of the node in flight and the caller's session.
 *
 * The engine keeps `currentNodeId` and `currentRequest` in the state before each node runs, and
 * `lastResult` and `lastNodeId` after it.
 *
 * @example
 * graph.addNode('count', (ctx) => {
 *   ctx.put('count', ((ctx.get('count') as number | undefined) ?? 0) + 1);
 *   return null;
 * });
 */
export class WorkflowContext {
  /** The shared state: a `Map` of JSON values that lives for the whole run. */
  readonly state: SharedState;
  /** The run this context belongs to. */
  readonly runId: string;
  #signal: AbortSignal | null;
  #signalSource: { readonly signal: AbortSignal } | null = null;
  /** The session passed in `RunOptions.session`, if any. */
  readonly session: unknown;
  /** The step (1-based node execution count) of the node in flight. */
  step = 0;
  readonly #journal: Journal | null;
  #calls: Map<string, number> | null = null;
  #reporter: NodeEmit | null = null;

  constructor(options: { runId: string; state?: SharedState; signal?: AbortSignal; session?: unknown; journal?: Journal | null }) {
    this.runId = options.runId;
    this.state = options.state ?? new SharedState();
    this.#signal = options.signal ?? null;
    this.session = options.session;
    this.#journal = options.journal ?? null;
  }

  /** Aborts when the run is cancelled while the current node is in flight. */
  get signal(): AbortSignal {
    // Made on first read: most nodes never look at it, and a signal per step is not free.
    this.#signal ??= this.#signalSource?.signal ?? new AbortController().signal;
    return this.#signal;
  }

  set signal(signal: AbortSignal) {
    this.#signal = signal;
    this.#signalSource = null;
  }

  /**
   * @internal The signal of the node in flight, read only when asked for and still that node's
   * after the context has moved on to the next one (what a typed workflow's step context keeps).
   */
  get nodeSignal(): { readonly signal: AbortSignal } {
    return this.#signal === null && this.#signalSource !== null ? this.#signalSource : { signal: this.signal };
  }

  /**
   * Starts a node execution: sets the step and where the node's signal comes from (read when the
   * node first asks for it), restarts the per-step call counters of {@link once} and sets where
   * {@link report} sends events (null while nobody listens to the run).
   */
  beginStep(step: number, signal: { readonly signal: AbortSignal }, reporter: NodeEmit | null = null): void {
    this.step = step;
    this.#signal = null;
    this.#signalSource = signal;
    this.#calls = null;
    this.#reporter = reporter;
  }

  /** True when someone listens to the run's events, so {@link report} is worth calling. */
  get reporting(): boolean {
    return this.#reporter !== null;
  }

  /**
   * Reports an event of the node in flight into the run's event stream (with the envelope and node
   * id added), in `run()` as in `stream()`; does nothing while nobody listens. Agent nodes use it
   * to report their model and tool calls.
   *
   * @example
   * ctx.report({ type: 'cache.hit', key });
   */
  report(event: NodeEmittedEvent): void {
    this.#reporter?.(event);
  }

  /**
   * Runs a side effect at most once per (run, step, key, occurrence) when the run has a store: if a
   * crashed or resumed run executes this step again, the recorded result is returned and `effect`
   * is not called. Without a store it simply calls `effect`. The result must be JSON.
   *
   * A crash after the effect but before its result is recorded still repeats it; effects that must
   * never repeat should also pass the given idempotency key to the system they call.
   *
   * @example
   * const receipt = await ctx.once('charge-card', (key) => payments.charge({ amount, idempotencyKey: key }));
   */
  async once<T>(key: string, effect: (idempotencyKey: string) => T | Promise<T>): Promise<T> {
    const calls = (this.#calls ??= new Map());
    const occurrence = (calls.get(key) ?? 0) + 1;
    calls.set(key, occurrence);
    const callKey = occurrence === 1 ? key : `${key}#${occurrence}`;
    const idempotencyKey = `${this.runId}:${this.step}:${callKey}`;
    if (this.#journal === null) return effect(idempotencyKey);
    const recorded = await this.#journal.get(this.runId, this.step, callKey);
    if (recorded !== undefined) return recorded.value as T;
    const value = await effect(idempotencyKey);
    await this.#journal.put(this.runId, this.step, callKey, value);
    return value;
  }

  /** Reads a value from the shared state (frozen: copy it to change it, then `put` the copy). */
  get<T = unknown>(key: string): T | undefined {
    return this.state.get(key) as T | undefined;
  }

  /**
   * Writes a value to the shared state through the key's reducer (replace by default). The value
   * must be JSON and match the key's schema when the graph declares its state; otherwise a
   * `StateValidationError` naming the key and the node is thrown here, in memory as in a stored run.
   */
  put(key: string, value: unknown): void {
    this.state.put(key, value);
  }
}
