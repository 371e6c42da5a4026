import { SharedState } from './SharedState.js';

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
  /** Aborts when the run is cancelled while the current node is in flight. */
  signal: AbortSignal;
  /** The session passed in `RunOptions.session`, if any. */
  readonly session: unknown;

  constructor(options: { runId: string; state?: SharedState; signal?: AbortSignal; session?: unknown }) {
    this.runId = options.runId;
    this.state = options.state ?? new SharedState();
    this.signal = options.signal ?? new AbortController().signal;
    this.session = options.session;
  }

  /** Reads a value from the shared state. */
  get<T = unknown>(key: string): T | undefined {
    return this.state.get(key) as T | undefined;
  }

  /** Writes a value to the shared state. Values should be JSON so a run can be persisted. */
  put(key: string, value: unknown): void {
    this.state.set(key, value);
  }
}
