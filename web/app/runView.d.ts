// Types of runView.js, for the page's type check and the tests that import it.

/** One execution of a node (a loop runs the same node in several rounds). */
export interface NodeRound {
  round: number;
  path: string;
  spanId: string | null;
  step: number | null;
  input: unknown;
  metadata: unknown;
  output: string | null;
  result: { outputText?: string | null; toolCalls?: unknown } | null;
  delta: { set: Record<string, unknown>; deleted: string[] } | null;
  durationMs: number | null;
  status: 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';
  error?: { code: string; message: string };
  events: Array<Record<string, unknown>>;
  /** Router answers (from this round) that its route maps did not have: each skipped its group. */
  unmatched?: UnmatchedRoute[];
}

/** A `route.unmatched` event as the page keeps it. */
export interface UnmatchedRoute {
  group: number;
  answer: string;
  routeKeys: string[];
  path: string;
}

/** A run as it stood after its first `upto` events. */
export interface RunView {
  status: string;
  active: Set<string>;
  activeNodes: Set<string>;
  waiting: { nodeId: string; reason: string } | null;
  visits: Map<string, number>;
  traversed: Map<string, number>;
  lastEdge: string | null;
  spans: Map<string, NodeRound[]>;
  lanes: Map<string, Array<{ seq: number; type: string; nodeId: string | null; label: string }>>;
  answer: string | null;
  error: { code?: string; message: string; nodeId?: string } | null;
  /** Root node ids whose step failed (the node threw, or its routing failed). */
  failedNodes: Set<string>;
  /** Every router answer a route map did not have, in order. */
  unmatched: Array<UnmatchedRoute & { nodeId: string }>;
  request: unknown;
  current: Record<string, unknown> | null;
}

/** The key of an edge in `RunView.traversed`. */
export function edgeKey(from: string, to: string): string;

/** What a run looks like after its first `upto` events (a pure function of the events). */
export function runViewAt(events: ReadonlyArray<Record<string, any>>, upto: number): RunView;
