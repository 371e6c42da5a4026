import type { AgentRequest, GraphNode, NodeFunction, StateCondition, StateRouter } from './AgentNode.js';
import { buildGraphSpec, type GraphDefinition } from './buildGraphSpec.js';
import { compileMachine, type GraphMachine } from './compileMachine.js';
import { END, type End } from './END.js';
import { startRun } from './startRun.js';
import { checkMaxSteps, type RunOptions } from './RunOptions.js';
import { describeValue } from './describeValue.js';
import { streamRun } from './streamRun.js';
import type { RunnableGraph } from './RunnableGraph.js';
import type { WorkflowEvent } from './WorkflowEvent.js';
import type { WorkflowRun } from './WorkflowRun.js';
import type { WorkflowContext } from './WorkflowContext.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { checkGraphOptions, checkNode, checkNodeId } from './checkDefinition.js';
import { StateModel } from '../state/StateModel.js';
import { modelNamesOf } from './modelNode.js';
import type { StateSpec } from '../state/StateSpec.js';
import type { NodeContext } from '../state/TypedContext.js';

/** Options for `new StateGraph()`. */
export interface StateGraphOptions<S extends StateSpec | null = null> {
  /** Shown in events and used as the machine id (default `"graph"`). */
  name?: string;
  /** The fuse: at most this many node executions per run (default 32). */
  maxSteps?: number;
  /**
   * The shared state's keys: a zod schema each (or `withReducer(schema, reducer)`). Declared, the
   * nodes' `ctx.get` / `ctx.put` are typed by it, and every write is checked against its key's
   * schema at run time (undeclared keys are refused). Omitted, any key takes any JSON value.
   */
  state?: S;
  /**
   * When a router answers a key its route map does not have, fail the run with a
   * `route_unmatched` error instead of skipping the group (default false: the group is skipped, as
   * in ai4j, and a `route.unmatched` event says so).
   */
  strictRoutes?: boolean;
}

/** The node ids a graph accepts in edges: those added so far, or any string before the first `addNode` in a chain. */
export type NodeIds<N extends string> = [N] extends [never] ? string : N;

/** The state values of the machine: the node ids, or any value when they are not known. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type MachineIds<N extends string> = [N] extends [never] ? any : N;

const DEFAULT_MAX_STEPS = 32;
/** Every option (typed, so a new option cannot be left out of the unknown-key check). */
const OPTION_KEYS: Record<keyof StateGraphOptions, true> = { name: true, maxSteps: true, state: true, strictRoutes: true };

function checkStrictRoutes(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new GraphDefinitionError(`new StateGraph("${name}"): strictRoutes must be true or false; received ${typeof value}`);
  return value;
}

/**
 * A graph of agent nodes with ai4j StateGraphWorkflow routing semantics, compiled to an XState v5
 * machine. After each node the next hop is, in order: the first conditional-edge group whose router
 * picks a target, else the first transition whose condition is absent or true, else the end.
 *
 * @example
 * const graph = new StateGraph({ name: 'triage' })
 *   .addNode('start', (_ctx, req) => String(req.input))
 *   .addNode('cold', () => 'wear a coat')
 *   .addNode('warm', () => 'wear a t-shirt')
 *   .start('start')
 *   .addConditionalEdges('start', (_ctx, req) => (String(req.input).includes('cold') ? 'cold' : 'warm'));
 * const run = await graph.run('it is cold'); // run.outputText === 'wear a coat', run.path = ['start', 'cold']
 *
 * Built by chaining, the graph's type carries its node ids (`N`), so `start`, `addEdge`,
 * `addTransition`, routers and route maps naming a node that was not added do not compile (add
 * nodes before the edges that name them); with `state`, nodes get a context typed by it (`S`).
 * Built statement by statement (`graph.addEdge(…)` on a variable), ids are plain strings and the
 * same mistakes are reported by `toMachine()` / `run()` as a `GraphDefinitionError`.
 */
export class StateGraph<S extends StateSpec | null = null, N extends string = never> implements RunnableGraph {
  readonly #def: GraphDefinition;
  #machine: GraphMachine | null = null;
  #listingModels = false;

  constructor(options: StateGraphOptions<S> = {}) {
    checkGraphOptions(options, Object.keys(OPTION_KEYS), 'new StateGraph()');
    const name = options.name ?? 'graph';
    if (typeof name !== 'string' || name.trim() === '') {
      throw new GraphDefinitionError('StateGraph name must be a non-empty string; omit it to use "graph"');
    }
    this.#def = {
      name,
      maxSteps: options.maxSteps === undefined ? DEFAULT_MAX_STEPS : checkMaxSteps(options.maxSteps, `new StateGraph("${name}")`),
      start: null,
      nodes: new Map(),
      groups: new Map(),
      transitions: new Map(),
      state: options.state === undefined || options.state === null ? StateModel.untyped : StateModel.fromSpec(options.state, name),
      strictRoutes: checkStrictRoutes(options.strictRoutes, name),
      budgetNode: null,
    };
  }

  /** The graph's name. */
  get name(): string {
    return this.#def.name;
  }

  /**
   * The models a run of this graph may choose: the names of the catalogs of its `modelNode`s, of
   * those of the graphs it runs as nodes (`WorkflowAgent`) and of its coordinators' specialists
   * when they share `runModel`, the first node's default first; empty when no node runs on a
   * chosen model (a chosen model would be ignored). A `modelNode` inside a `lazyNode` is not seen:
   * its node is unknown until it loads.
   */
  get models(): string[] {
    // A graph that runs itself as one of its nodes would ask itself again: it adds nothing more.
    if (this.#listingModels) return [];
    this.#listingModels = true;
    try {
      const names = new Set<string>();
      for (const node of this.#def.nodes.values()) for (const name of modelNamesOf(node) ?? []) names.add(name);
      return [...names];
    } finally {
      this.#listingModels = false;
    }
  }

  /** Adds a node: an `AgentNode` object or a function `(ctx, request) => result | string | null`. */
  addNode<I extends string>(id: I, node: GraphNode<NodeContext<S, N | I>>): StateGraph<S, N | I>;
  /** Adds a node written for any graph (its context is the untyped `WorkflowContext`). */
  addNode<I extends string>(id: I, node: NodeFunction<WorkflowContext>): StateGraph<S, N | I>;
  addNode(id: string, node: GraphNode<never>): StateGraph<S, string> {
    if (typeof id !== 'string' || id.trim() === '') {
      throw new GraphDefinitionError(`addNode: node id must be a non-blank string; received ${describeValue(id)}`);
    }
    if (id.startsWith('__')) {
      throw new GraphDefinitionError(`addNode("${id}"): ids starting with "__" are reserved (END is "${END}"); rename the node`);
    }
    if (this.#def.nodes.has(id)) {
      throw new GraphDefinitionError(`addNode("${id}"): a node with this id already exists; node ids must be unique`);
    }
    checkNode(node, `addNode("${id}")`);
    this.#def.nodes.set(id, node as GraphNode);
    return this.#changed() as StateGraph<S, string>;
  }

  /** Sets the node the graph starts at. */
  start(id: NodeIds<N>): this {
    checkNodeId(id, 'start()');
    this.#def.start = id;
    return this.#changed();
  }

  /** An unconditional transition: `from` → `to` (a node id or `END`). */
  addEdge(from: NodeIds<N>, to: NodeIds<N> | End): this {
    return this.addTransition(from, to);
  }

  /** A transition taken when `condition` is absent or returns true; transitions are tried in the order added. */
  addTransition(from: NodeIds<N>, to: NodeIds<N> | End, condition?: StateCondition<NodeContext<S, NodeIds<N>>>): this {
    checkNodeId(from, 'addTransition(from, …)');
    checkNodeId(to, `addTransition("${from}", to)`);
    if (condition !== undefined && typeof condition !== 'function') {
      throw new GraphDefinitionError(`addTransition("${from}", "${to}"): condition must be a function (ctx, request, result) => boolean`);
    }
    const list = this.#def.transitions.get(from) ?? [];
    list.push({ to, condition: (condition as StateCondition | undefined) ?? null });
    this.#def.transitions.set(from, list);
    return this.#changed();
  }

  /**
   * A conditional-edge group: `router` returns a node id or `END` (or, with `routeMap`, a key mapped
   * to one); null/undefined or an unmapped key skips the group. Groups win over transitions.
   */
  addConditionalEdges(from: NodeIds<N>, router: StateRouter<NodeContext<S, NodeIds<N>>, NodeIds<N> | End>): this;
  /**
   * A conditional-edge group with a route map: the router's answer is looked up in `routeMap`, whose
   * keys are the answers it may give and whose values are node ids or `END`.
   */
  addConditionalEdges<R extends string>(from: NodeIds<N>, router: StateRouter<NodeContext<S, NodeIds<N>>, R>, routeMap: Record<NoInfer<R>, NodeIds<N> | End>): this;
  addConditionalEdges(from: string, router: StateRouter<never>, routeMap?: Record<string, string>): this {
    checkNodeId(from, 'addConditionalEdges(from, …)');
    if (typeof router !== 'function') {
      throw new GraphDefinitionError(`addConditionalEdges("${from}"): router must be a function (ctx, request, result) => string | null`);
    }
    if (routeMap !== undefined && (routeMap === null || typeof routeMap !== 'object' || Array.isArray(routeMap))) {
      throw new GraphDefinitionError(`addConditionalEdges("${from}"): routeMap must be an object of route key → node id or END`);
    }
    const list = this.#def.groups.get(from) ?? [];
    list.push({ router: router as StateRouter, routeMap: routeMap === undefined ? null : { ...routeMap } });
    this.#def.groups.set(from, list);
    return this.#changed();
  }

  /** Sets the fuse: at most `n` node executions per run. */
  maxSteps(n: number): this {
    this.#def.maxSteps = checkMaxSteps(n, `StateGraph("${this.#def.name}").maxSteps()`);
    return this.#changed();
  }

  /**
   * Names the node a run goes to when one of its budgets (`RunOptions.budget`) is spent, instead of
   * ending with status `budget-exceeded`: typically a human node that hands the run to a person.
   * The node finds `{ budget, limit, spent }` in the state under `BUDGET_EXCEEDED`; from then on the
   * budgets no longer stop the run (the handler must be able to run).
   */
  onBudgetExceeded(id: NodeIds<N>): this {
    if (typeof id !== 'string' || id.trim() === '') throw new GraphDefinitionError(`StateGraph("${this.#def.name}").onBudgetExceeded(): give the id of a node of the graph`);
    this.#def.budgetNode = id;
    return this.#changed();
  }

  /** The XState machine this graph compiles to (cached until the graph changes); its state values are the node ids. */
  toMachine(): GraphMachine<MachineIds<N>> {
    this.#machine ??= compileMachine(buildGraphSpec(this.#def));
    return this.#machine as GraphMachine<MachineIds<N>>;
  }

  /** Runs the graph to its end and resolves with the run; failures are reported in `run.status`. */
  run(input: string | AgentRequest, options: RunOptions = {}): Promise<WorkflowRun> {
    try {
      return startRun(this.toMachine(), input, options, false);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Runs the graph and yields its events; the last one is `run.completed`. Nodes' `executeStream` is used. */
  stream(input: string | AgentRequest, options: RunOptions = {}): AsyncIterable<WorkflowEvent> {
    return streamRun((i, o, l) => startRun(this.toMachine(), i, o, true, l), input, options);
  }

  #changed(): this {
    this.#machine = null;
    return this;
  }
}
