import type { WorkflowContext } from './WorkflowContext.js';

/** What a node receives: the input (the previous node's output text, or the run's input) and metadata. */
export interface AgentRequest {
  input: unknown;
  metadata?: Record<string, unknown>;
}

/** Token counts reported by a model call. */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

/**
 * What a node returns. When `outputText` is a string (even `""`) it becomes the next node's input;
 * when it is null or undefined the next node gets the same request this node got.
 */
export interface AgentResult {
  outputText?: string | null;
  /**
   * A JSON value handed to the next node as its input as it is (before `outputText`): how a typed
   * workflow's steps pass structured values on. Absent, the handoff rule above applies.
   */
  handoff?: unknown;
  rawResponse?: unknown;
  toolCalls?: unknown[];
  usage?: Usage;
}

/** A node-level event passed to `emit` by `executeStream`; forwarded with the run's envelope added. */
export interface NodeEmittedEvent {
  type: string;
  [field: string]: unknown;
}

/** Forwards a node's own events into the run's event stream, in order. */
export type NodeEmit = (event: NodeEmittedEvent) => void;

/** What a node may return: a result, a string (shorthand for `{ outputText }`), or nothing. */
export type NodeOutput = AgentResult | string | null | undefined;

/**
 * A graph node object. `run()` calls `execute`; `stream()` calls `executeStream` when present
 * (falling back to `execute`), and both must return the node's result. `C` is the context it gets:
 * a `WorkflowContext`, or in a graph that declares its state, that graph's typed context.
 */
export interface AgentNode<C = WorkflowContext> {
  /** Shown in `path` when the node is part of a `SequentialWorkflow`. */
  readonly name?: string;
  execute(ctx: C, request: AgentRequest): NodeOutput | Promise<NodeOutput>;
  executeStream?(ctx: C, request: AgentRequest, emit: NodeEmit): NodeOutput | Promise<NodeOutput>;
}

/** A node written as a plain function, sync or async. */
export type NodeFunction<C = WorkflowContext> = (ctx: C, request: AgentRequest) => NodeOutput | Promise<NodeOutput>;

/** Anything `addNode` accepts. */
export type GraphNode<C = WorkflowContext> = AgentNode<C> | NodeFunction<C>;

/**
 * Chooses the next node: a node id, `END`, a route-map key, or null/undefined to skip the group.
 * `R` is what it may answer (in a graph built by chaining, the node ids added so far and `END`).
 */
export type StateRouter<C = WorkflowContext, R extends string = string> = (ctx: C, request: AgentRequest, result: AgentResult | null) => R | null | undefined;

/** Decides whether a transition is taken. */
export type StateCondition<C = WorkflowContext> = (ctx: C, request: AgentRequest, result: AgentResult | null) => boolean;
