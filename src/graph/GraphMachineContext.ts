import type { AgentRequest, AgentResult } from './AgentNode.js';
import type { PathLog } from './PathLog.js';
import type { StateDelta } from './SharedState.js';
import type { RunStatus } from './WorkflowRun.js';
import type { SerializedError } from '../errors/SwitchboardError.js';
import type { TraceContext } from '../trace/TraceContext.js';
import type { BudgetExceeded, BudgetOptions, BudgetState } from '../budget/Budget.js';
import type { Breakpoints } from './Breakpoints.js';

/**
 * The routing decision for one step, as the guards read it: `entry` indexes the node's routes
 * (-1: nothing matched, the graph ends; -2: routing failed). `toEnd` is true when the hop ends the
 * graph, so the fuse only trips for a run that would go on.
 */
export interface RouteChoice {
  entry: number;
  toEnd: boolean;
  routeKey?: string;
  /** Answers routers gave that their route maps did not have (each skipped its group). */
  unmatched?: UnmatchedAnswer[];
  /** Set when a budget of the run is spent after this step: the run stops instead of taking the hop. */
  budget?: BudgetExceeded;
}

/** A router's answer its route map did not have: the group (0-based) and the answer. */
export interface UnmatchedAnswer {
  group: number;
  answer: string;
}

/**
 * The machine's context. Plain JSON, so `getPersistedSnapshot()` round-trips through
 * `JSON.stringify`. It is never changed in place: every step makes new `state` and `path` objects
 * (sharing what did not change), so a snapshot once handed out stays as it was.
 */
export interface GraphMachineContext {
  runId: string;
  graph: string;
  /** The run's place in its trace (kept so a resumed run continues the same trace). */
  trace: TraceContext;
  /** The request the current node got, then (after it) the request for the next node. */
  request: AgentRequest;
  /** The last node's result. */
  result: AgentResult | null;
  state: Record<string, unknown>;
  /** The node ids executed so far (read it with `readPath`; `WorkflowRun.path` is the flat list). */
  path: PathLog;
  steps: number;
  maxSteps: number;
  status: 'running' | RunStatus;
  /** The node in flight, if any. */
  inFlight: string | null;
  /** The last completed node's writes to the shared state. */
  delta: StateDelta | null;
  /** How long the last completed node took (for a human node: how long the run waited). */
  durationMs: number;
  /** Set while the run waits at a human node. */
  waiting: WaitingInfo | null;
  /** Set between a human reply and its routing step (regular nodes carry it in their actor's output). */
  decision: RouteChoice | null;
  error: SerializedError | null;
  /** The run's budgets and what it spent (null for a run without a budget). */
  budget: BudgetState | null;
  /** Where the run pauses (`RunOptions.breakpoints`); absent without breakpoints. */
  breakpoints?: Required<Breakpoints>;
}

/** Where and why a run waits for a human. */
export interface WaitingInfo {
  nodeId: string;
  reason: string;
  /** Epoch ms when the run started waiting. */
  since: number;
  /** Set when a coordinator's run waits because one of its specialists waits: which one, and where. */
  specialist?: WaitingSpecialist;
  /** Set when the run paused at a breakpoint (it goes on when resumed without a reply). */
  breakpoint?: 'before' | 'after';
  /**
   * Set when a coordinator's run waits for its specialists running on the run queue (child jobs):
   * which runs, and when the first attempt deadline falls (null: none). It goes on without a reply
   * once they have ended, or at `wakeAt`.
   */
  queued?: { runs: QueuedSpecialist[]; wakeAt: number | null };
}

/** A specialist run on the queue a coordinator's run waits for. */
export interface QueuedSpecialist {
  /** The task's 0-based index in the dispatch. */
  index: number;
  kind: string;
  /** The specialist run's id (`<parent run>:<dispatch step>:<task number>`). */
  runId: string;
}

/** The specialist a coordinator's run waits for. */
export interface WaitingSpecialist {
  /** The task's 0-based index in the dispatch. */
  index: number;
  kind: string;
  /** The specialist run's id (`<parent run>/<kind>[n]`). */
  runId: string;
  /** The specialist's trace path (`root/<kind>[n]`). */
  path: string;
  /** The node the specialist waits at (a human node, or its own coordinator's dispatch node). */
  nodeId: string;
}

/** The machine's input: `{ request, runId?, maxSteps?, state? }`. */
export interface GraphMachineInput {
  request: AgentRequest | string;
  runId?: string;
  maxSteps?: number;
  state?: Record<string, unknown>;
  /** Set when a coordinator starts this run as a specialist: its trace, parent span and path. */
  trace?: TraceContext;
  /** The run's budgets (see `RunOptions.budget`). */
  budget?: BudgetOptions;
  /** Where the run pauses (checked; see `RunOptions.breakpoints`). */
  breakpoints?: Required<Breakpoints>;
}

/** What the machine resolves to when it reaches a final state (JSON; `state` is a plain object). */
export interface GraphMachineOutput {
  runId: string;
  status: RunStatus;
  result: AgentResult | null;
  outputText: string | null;
  path: string[];
  steps: number;
  state: Record<string, unknown>;
  error: SerializedError | null;
  waiting: WaitingInfo | null;
  /** The run's budgets and what it spent (null for a run without a budget). */
  budget: BudgetState | null;
}

/** The event that cancels a run. */
export interface CancelEvent {
  type: 'workflow.cancel';
}

/** The event the engine sends when a run's duration budget runs out while a node is in flight. */
export interface BudgetTimeEvent {
  type: 'workflow.budget';
}


/** The event that resumes a run waiting at a human node. */
export interface HumanReplyEvent {
  type: 'human.reply';
  /** Text, or (for a human node declared with a `reply` schema) any JSON value. */
  reply: unknown;
}

/** Every event a graph machine accepts. */
export type GraphMachineEvent = CancelEvent | BudgetTimeEvent | HumanReplyEvent | NodeDoneEvent | NodeErrorEvent;

/**
 * A node's actor finished (XState's done event for the invoke whose id is the node id). The engine
 * never sends it; it is typed so path tests can drive a machine with it (see `graphPaths`).
 */
export interface NodeDoneEvent {
  type: `xstate.done.actor.${string}`;
  output: NodeActorOutput;
}

/** A node's actor threw (XState's error event for the node's invoke); typed for path tests like {@link NodeDoneEvent}. */
export interface NodeErrorEvent {
  type: `xstate.error.actor.${string}`;
  error: unknown;
}

/** What a node actor receives (persisted with the snapshot while the node is in flight). */
export interface NodeActorInput {
  runId: string;
  request: AgentRequest;
  step: number;
}

/** What a node actor resolves to: the node's result and the routing decision made right after it. */
export interface NodeActorOutput {
  result: AgentResult | null;
  durationMs: number;
  /** The clock reading that ended the node (its duration's end), shared as the time of its `node.completed`. */
  endedAt?: number;
  decision: RouteChoice;
}
