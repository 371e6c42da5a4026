import type { AgentRequest, AgentResult } from './AgentNode.js';
import type { StateDelta } from './SharedState.js';
import type { CallbackKind } from '../errors/CallbackError.js';
import type { SerializedError } from '../errors/SwitchboardError.js';
import type { WorkflowRun } from './WorkflowRun.js';
import type { BudgetName } from '../budget/Budget.js';

/**
 * Fields every event carries. `seq` counts 1, 2, 3… per run (a specialist's events take the next
 * numbers of the run that started it); `at` is epoch milliseconds. Node events belong to the node's
 * span (child of the run's span); run events to the run's span. `path` is `root` for the top-level
 * run and `root/<kind>[n]` inside a specialist.
 */
export interface EventEnvelope {
  runId: string;
  seq: number;
  at: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  path: string;
  /** The node the event is about; null for run-level events. */
  nodeId: string | null;
}

/** How the next hop was chosen: a conditional group, a transition, or nothing matched. */
export type EdgeKind = 'conditional' | 'transition' | 'end';

/** The run began. */
export interface RunStartedEvent extends EventEnvelope {
  type: 'run.started';
  graph: string;
  request: AgentRequest;
  /** The shared state the run was seeded with (left out when empty): step 0 of its history. */
  state?: Record<string, unknown>;
  /** Set for a run forked from another: the parent run and the step it was forked at. */
  forkOf?: ForkLink;
}

/** Where a forked run came from: its parent run and the step (0 = before the first node) it was forked at. */
export interface ForkLink {
  runId: string;
  step: number;
  /**
   * The state writes the fork made after its last replayed step (`ForkOptions.state`), kept so a
   * fork that continues after a crash before that step makes them too. Absent without an edit.
   */
  edit?: StateDelta;
}

/** A node is about to execute. `step` is 1-based and counts toward `maxSteps`. */
export interface NodeStartedEvent extends EventEnvelope {
  type: 'node.started';
  nodeId: string;
  step: number;
  request: AgentRequest;
}

/** A node returned. `delta` lists the shared-state keys it wrote or removed. */
export interface NodeCompletedEvent extends EventEnvelope {
  type: 'node.completed';
  nodeId: string;
  step: number;
  result: AgentResult | null;
  durationMs: number;
  delta: StateDelta | null;
}

/** A node threw, or returned something that is not a result. */
export interface NodeFailedEvent extends EventEnvelope {
  type: 'node.failed';
  nodeId: string;
  step: number;
  error: SerializedError;
}

/** The run was cancelled while this node was in flight. */
export interface NodeCancelledEvent extends EventEnvelope {
  type: 'node.cancelled';
  nodeId: string;
  step: number;
}

/** A router or condition threw, or a router named an unknown node. */
export interface RouteFailedEvent extends EventEnvelope {
  type: 'route.failed';
  nodeId: string;
  step: number;
  error: SerializedError;
}

/**
 * A router answered a key its route map does not have, so its group was skipped (routing went on
 * with the next group, the transitions, or the end). With `strictRoutes` the step fails instead.
 */
export interface RouteUnmatchedEvent extends EventEnvelope {
  type: 'route.unmatched';
  nodeId: string;
  step: number;
  /** The 0-based conditional group on the node. */
  group: number;
  /** What the router answered. */
  answer: string;
  /** The keys its route map has. */
  routeKeys: string[];
}

/** The run stopped at a human node and waits for a reply. */
export interface RunWaitingEvent extends EventEnvelope {
  type: 'run.waiting';
  nodeId: string;
  step: number;
  reason: string;
  /** Set when the run paused at a breakpoint (before `nodeId` runs) rather than at a human node. */
  breakpoint?: 'before' | 'after';
}

/** A waiting or interrupted run continues (after a reply, a recovery, or in a new process). */
export interface RunResumedEvent extends EventEnvelope {
  type: 'run.resumed';
  graph: string;
  /**
   * `reply` for a human reply, `recover` after a crash, `breakpoint` to go on from a breakpoint,
   * `specialists` when a coordinator's specialists on the run queue have ended (or one's deadline came).
   */
  cause: 'reply' | 'recover' | 'breakpoint' | 'specialists';
  /** The node the run continues at (the human node, or the node that was in flight). */
  atNodeId: string | null;
  /**
   * Set for a fork that continues while it still replays its parent's steps (see `forkRun`): how
   * many steps from here on, the one it continues at included, are its parent's (replayed, not
   * executed). Their transitions are the parent's, so transition analytics leave them out.
   */
  replaying?: number;
}

/** The routing step chose the next hop. `to` is `END` when the graph ends here. */
export interface EdgeTraversedEvent extends EventEnvelope {
  type: 'edge.traversed';
  from: string;
  to: string;
  kind: EdgeKind;
  /** For `conditional`: the 0-based group on `from`; for `transition`: its 0-based index. */
  index?: number;
  /** For `conditional`: what the router returned. */
  routeKey?: string;
}

/**
 * A callback the caller handed in (a recorder, `onEvent`, `inspect`, the clock, a human node's
 * reason) threw, rejected or returned something unusable. The run goes on without it; the error
 * is also in `run.callbackErrors`.
 */
export interface CallbackFailedEvent extends EventEnvelope {
  type: 'callback.failed';
  callback: CallbackKind;
  error: SerializedError;
}

/** The last event of every run, whatever its status. */
export interface RunCompletedEvent extends EventEnvelope {
  type: 'run.completed';
  run: WorkflowRun;
}

/** An event a node passed to `emit` in `executeStream`, with the envelope and its node id added. */
export interface NodeCustomEvent extends EventEnvelope {
  type: string;
  nodeId: string;
  [field: string]: unknown;
}

/** The engine's own events. */
/**
 * A budget of the run is spent (`budget`: which one, its `limit` and what was `spent`): the run
 * stops at `nodeId` (the node after which, or during which, it was spent) and ends
 * `budget-exceeded`, or goes to the graph's `onBudgetExceeded` node (`handler`).
 */
export interface BudgetExceededEvent extends EventEnvelope {
  type: 'budget.exceeded';
  nodeId: string;
  step: number;
  budget: BudgetName;
  limit: number;
  spent: number;
  handler: string | null;
}

export type EngineEvent =
  | RunStartedEvent
  | BudgetExceededEvent
  | NodeStartedEvent
  | NodeCompletedEvent
  | NodeFailedEvent
  | NodeCancelledEvent
  | RouteFailedEvent
  | RouteUnmatchedEvent
  | EdgeTraversedEvent
  | RunWaitingEvent
  | RunResumedEvent
  | CallbackFailedEvent
  | RunCompletedEvent;

/** Everything `stream()` yields and `RunOptions.onEvent` receives. */
export type WorkflowEvent = EngineEvent | NodeCustomEvent;

/** Narrows a workflow event to one of the engine's event types. */
export function isEngineEvent<T extends EngineEvent['type']>(
  event: WorkflowEvent,
  type: T,
): event is Extract<EngineEvent, { type: T }> {
  return event.type === type;
}
