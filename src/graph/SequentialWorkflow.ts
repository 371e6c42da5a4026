import type { AgentRequest, GraphNode } from './AgentNode.js';
import { compileMachine, type GraphMachine } from './compileMachine.js';
import type { CompiledNode, GraphSpec } from './GraphSpec.js';
import { startRun } from './startRun.js';
import type { RunOptions } from './RunOptions.js';
import { stateKey } from './stateKey.js';
import { streamRun } from './streamRun.js';
import type { RunnableGraph } from './RunnableGraph.js';
import type { WorkflowEvent } from './WorkflowEvent.js';
import type { WorkflowRun } from './WorkflowRun.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { checkGraphOptions, checkNode } from './checkDefinition.js';
import { describeValue } from './describeValue.js';
import { StateModel } from '../state/StateModel.js';

/** The id a node gets in `path`: its `name` when it has a non-blank one, else `step-<n>`. */
function nodeId(node: GraphNode, index: number): string {
  const name = (node as { name?: unknown }).name;
  return typeof name === 'string' && name.trim() !== '' ? name : `step-${index + 1}`;
}

/**
 * Runs nodes one after another in insertion order with the same handoff as `StateGraph` (a node's
 * `outputText` becomes the next node's input). It never loops, so it has no fuse. Its result is
 * the last node's result (null for an empty workflow).
 *
 * @example
 * const chain = new SequentialWorkflow()
 *   .addNode(() => 'step1')
 *   .addNode((_ctx, req) => `echo:${String(req.input)}`);
 * const run = await chain.run('go'); // run.outputText === 'echo:step1'
 */
export class SequentialWorkflow implements RunnableGraph {
  readonly name: string;
  readonly #nodes: GraphNode[] = [];
  #machine: GraphMachine | null = null;

  constructor(options: { name?: string } = {}) {
    checkGraphOptions(options, ['name'], 'new SequentialWorkflow()');
    const name = options.name ?? 'sequential';
    if (typeof name !== 'string' || name.trim() === '') {
      throw new GraphDefinitionError(`new SequentialWorkflow(): name must be a non-blank string; omit it to use "sequential"; received ${describeValue(name)}`);
    }
    this.name = name;
  }

  /** Appends a node. */
  addNode(node: GraphNode): this {
    checkNode(node, 'SequentialWorkflow.addNode');
    this.#nodes.push(node);
    this.#machine = null;
    return this;
  }

  /** The XState machine: a chain of node states. */
  toMachine(): GraphMachine {
    this.#machine ??= compileMachine(this.#spec());
    return this.#machine;
  }

  /** Runs every node in order; `RunOptions.maxSteps` is checked but there is no fuse to trip. */
  run(input: string | AgentRequest, options: RunOptions = {}): Promise<WorkflowRun> {
    try {
      return startRun(this.toMachine(), input, options, false);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Runs every node in order and yields the events; nodes' `executeStream` is used. */
  stream(input: string | AgentRequest, options: RunOptions = {}): AsyncIterable<WorkflowEvent> {
    return streamRun((i, o, l) => startRun(this.toMachine(), i, o, true, l), input, options);
  }

  #spec(): GraphSpec {
    const keys = new Set<string>();
    const nodes: CompiledNode[] = this.#nodes.map((node, index) => {
      const id = nodeId(node, index);
      // A name may repeat (the same agent twice); its state key must not.
      let key = stateKey(id);
      while (keys.has(key)) key = `${key}~${index + 1}`;
      keys.add(key);
      return { id, key, node, groups: [], transitions: [], routes: [], strictRoutes: false };
    });
    nodes.forEach((node, index) => {
      const next = nodes[index + 1];
      if (next === undefined) return;
      node.transitions.push({ to: next.id, condition: null, entry: 0 });
      node.routes.push({ kind: 'transition', index: 0, to: next.id, toKey: next.key });
    });
    const byKey = new Map(nodes.map((n) => [n.key, n]));
    return { name: this.name, kind: 'sequential', start: nodes[0] ?? null, nodes, byKey, maxSteps: Math.max(nodes.length, 1), fused: false, state: StateModel.untyped };
  }
}
