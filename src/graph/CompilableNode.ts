import type { AnyActorLogic } from 'xstate';
import type { AgentNode } from './AgentNode.js';
import type { CompiledNode } from './GraphSpec.js';
import type { RunnableGraph } from './RunnableGraph.js';

/** The key under which a node that compiles itself provides its compiler. */
export const COMPILE_NODE = Symbol.for('switchboard.compileNode');

/** What the graph compiler offers a node that builds its own XState state. */
export interface NodeCompileScope {
  /** The node as compiled: id, state key and its routes in priority order. */
  node: CompiledNode;
  /** `#<machine id>`: prefix for absolute targets. */
  root: string;
  /** The engine's entry actions for a node state (path, step count, `node.started`). */
  enterActions(): object[];
  /**
   * The node's hops for an eventless routing state, reading `context.decision` (set it with
   * `settleAndRoute` when the node's work is done).
   */
  routingHops(): object[];
  /**
   * The engine's way out when work the node runs for `nodeId` (a fork's branch) fails: a model call
   * refused by a spent budget stops the run for the budget (or sends it to the graph's
   * `onBudgetExceeded` node), anything else fails the run. For an invoke's `onError`.
   */
  errorHops(nodeId: string): object[];
  /** A name for an actor, action or guard that cannot collide with another node's. */
  name(local: string): string;
}

/** A node's own part of the machine: its state config and the implementations it refers to. */
export interface CompiledNodeState {
  state: object;
  actors?: Record<string, AnyActorLogic>;
  actions?: Record<string, unknown>;
  guards?: Record<string, unknown>;
}

/** A child graph a node runs (a coordinator's specialist): its name in the node and its graph's name. */
export interface NodePart {
  /** What the node calls it (a coordinator's task kind). */
  name: string;
  /** The child graph's name. */
  graph: string;
}

/**
 * A node that compiles itself into XState instead of being invoked as a promise actor — for
 * example a coordinator that runs specialist machines as parallel child actors.
 */
export interface CompilableNode extends AgentNode {
  [COMPILE_NODE](scope: NodeCompileScope): CompiledNodeState;
  /**
   * The child graphs the node runs in parallel, for drawings and exports: a node with parts is a
   * coordinator (its parts are its specialists).
   */
  readonly parts?: readonly NodePart[];
  /** True for a typed workflow's fork: its parts are its branches (steps run side by side), not specialist graphs. */
  readonly fork?: boolean;
  /**
   * For a node whose run waits because a child run waits (a coordinator's specialist): that
   * child's machine and persisted snapshot, read from the parent's persisted `snapshot` while it
   * waits at this node (`nodeId`). Lets a resume find the human node a reply is for.
   */
  waitingChild?(snapshot: unknown, nodeId: string): { machine: object; snapshot: unknown } | null;
  /**
   * The child graphs themselves (a coordinator's specialists): a worker of the run queue registers
   * them, so it can advance their runs when they run as child jobs.
   */
  childGraphs?(): readonly RunnableGraph[];
}

/** True for nodes that compile themselves. */
export function isCompilableNode(node: unknown): node is CompilableNode {
  return typeof node === 'object' && node !== null && typeof (node as { [COMPILE_NODE]?: unknown })[COMPILE_NODE] === 'function';
}
