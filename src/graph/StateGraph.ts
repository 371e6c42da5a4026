import type { AgentRequest, GraphNode, StateCondition, StateRouter } from './AgentNode.js';
import { buildGraphSpec, type GraphDefinition } from './buildGraphSpec.js';
import { compileMachine, type GraphMachine } from './compileMachine.js';
import { END } from './END.js';
import { startRun } from './startRun.js';
import { checkMaxSteps, type RunOptions } from './RunOptions.js';
import { streamRun } from './streamRun.js';
import type { Workflow } from './Workflow.js';
import type { WorkflowEvent } from './WorkflowEvent.js';
import type { WorkflowRun } from './WorkflowRun.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';

/** Options for `new StateGraph()`. */
export interface StateGraphOptions {
  /** Shown in events and used as the machine id (default `"graph"`). */
  name?: string;
  /** The fuse: at most this many node executions per run (default 32). */
  maxSteps?: number;
}

const DEFAULT_MAX_STEPS = 32;

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
 */
export class StateGraph implements Workflow {
  readonly #def: GraphDefinition;
  #machine: GraphMachine | null = null;

  constructor(options: StateGraphOptions = {}) {
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
    };
  }

  /** The graph's name. */
  get name(): string {
    return this.#def.name;
  }

  /** Adds a node: an `AgentNode` object or a function `(ctx, request) => result | string | null`. */
  addNode(id: string, node: GraphNode): this {
    if (typeof id !== 'string' || id.trim() === '') {
      throw new GraphDefinitionError(`addNode: node id must be a non-blank string; received ${JSON.stringify(id)}`);
    }
    if (id.startsWith('__')) {
      throw new GraphDefinitionError(`addNode("${id}"): ids starting with "__" are reserved (END is "${END}"); rename the node`);
    }
    if (this.#def.nodes.has(id)) {
      throw new GraphDefinitionError(`addNode("${id}"): a node with this id already exists; node ids must be unique`);
    }
    const isNode = typeof node === 'function' || (node !== null && typeof node === 'object' && typeof node.execute === 'function');
    if (!isNode) {
      throw new GraphDefinitionError(`addNode("${id}"): expected a function or an object with execute(ctx, request); received ${node === null ? 'null' : typeof node}`);
    }
    this.#def.nodes.set(id, node);
    return this.#changed();
  }

  /** Sets the node the graph starts at. */
  start(id: string): this {
    this.#def.start = id;
    return this.#changed();
  }

  /** An unconditional transition: `from` → `to` (a node id or `END`). */
  addEdge(from: string, to: string): this {
    return this.addTransition(from, to);
  }

  /** A transition taken when `condition` is absent or returns true; transitions are tried in the order added. */
  addTransition(from: string, to: string, condition?: StateCondition): this {
    if (condition !== undefined && typeof condition !== 'function') {
      throw new GraphDefinitionError(`addTransition("${from}", "${to}"): condition must be a function (ctx, request, result) => boolean`);
    }
    const list = this.#def.transitions.get(from) ?? [];
    list.push({ to, condition: condition ?? null });
    this.#def.transitions.set(from, list);
    return this.#changed();
  }

  /**
   * A conditional-edge group: `router` returns a node id or `END` (or, with `routeMap`, a key mapped
   * to one); null/undefined or an unmapped key skips the group. Groups win over transitions.
   */
  addConditionalEdges(from: string, router: StateRouter, routeMap?: Record<string, string>): this {
    if (typeof router !== 'function') {
      throw new GraphDefinitionError(`addConditionalEdges("${from}"): router must be a function (ctx, request, result) => string | null`);
    }
    if (routeMap !== undefined && (routeMap === null || typeof routeMap !== 'object' || Array.isArray(routeMap))) {
      throw new GraphDefinitionError(`addConditionalEdges("${from}"): routeMap must be an object of route key → node id or END`);
    }
    const list = this.#def.groups.get(from) ?? [];
    list.push({ router, routeMap: routeMap === undefined ? null : { ...routeMap } });
    this.#def.groups.set(from, list);
    return this.#changed();
  }

  /** Sets the fuse: at most `n` node executions per run. */
  maxSteps(n: number): this {
    this.#def.maxSteps = checkMaxSteps(n, `StateGraph("${this.#def.name}").maxSteps()`);
    return this.#changed();
  }

  /** The XState machine this graph compiles to (cached until the graph changes). */
  toMachine(): GraphMachine {
    this.#machine ??= compileMachine(buildGraphSpec(this.#def));
    return this.#machine;
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
