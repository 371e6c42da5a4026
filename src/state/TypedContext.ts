import type { AgentRequest, AgentResult } from '../graph/AgentNode.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import type { StateSpec, StateUpdates, StateValues } from './StateSpec.js';

/** The keys the engine keeps in every run's state, and what they hold (`N`: the graph's node ids). */
export interface EngineState<N extends string = string> {
  /** The last completed node's result (written before its routers run). */
  lastResult: AgentResult | null;
  /** The last completed node (written before its routers run). */
  lastNodeId: N;
  /** The node in flight (or, while routing, the node being routed from). */
  currentNodeId: N;
  /** The request the node in flight got. */
  currentRequest: AgentRequest;
}

/** What `get` returns for a key of a typed state or the engine's own keys. */
type Read<V, N extends string, K> = K extends keyof V ? V[K] : K extends keyof EngineState<N> ? EngineState<N>[K] : never;

/**
 * The context a node, router or condition gets in a graph that declares its state: `get` and `put`
 * take only declared keys (plus the engine's keys for `get`) and their values' types; everything
 * else is the `WorkflowContext` it is at run time.
 *
 * @example
 * const graph = new StateGraph({ state: { draft: z.string(), score: z.number() } })
 *   .addNode('review', (ctx) => {
 *     ctx.put('score', ctx.get('draft')?.length ?? 0); // ctx.put('score', 'high') does not compile
 *     return null;
 *   });
 */
export interface TypedContext<V, U, N extends string = string> extends Omit<WorkflowContext, 'get' | 'put'> {
  /** Reads a declared key (or `lastResult`, `lastNodeId`, `currentNodeId`, `currentRequest`). */
  get<K extends (keyof V | keyof EngineState) & string>(key: K): Read<V, N, K> | undefined;
  /** Writes a declared key through its reducer; checked against its schema at run time too. */
  put<K extends keyof U & string>(key: K, value: U[K]): void;
}

/** The context of a graph's nodes: typed when it declares its state (`S`), else the plain `WorkflowContext`. */
export type NodeContext<S extends StateSpec | null, N extends string = string> = [S] extends [StateSpec]
  ? TypedContext<StateValues<S>, StateUpdates<S>, N>
  : WorkflowContext;
