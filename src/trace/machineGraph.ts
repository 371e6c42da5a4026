import { specOf, type GraphMachine } from '../graph/compileMachine.js';
import type { CompiledNode, GraphSpec } from '../graph/GraphSpec.js';
import { isCompilableNode, type NodePart } from '../graph/CompilableNode.js';
import { isHumanNode } from '../graph/humanNode.js';
import { FINAL_STATES } from '../graph/stateKey.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';

/**
 * Why a hop out of a node is taken: a conditional group or a transition matched, nothing matched
 * (`end`), the fuse tripped, a router failed (`route-failed`) or the node threw (`error`).
 */
export type MachineEdgeKind = 'conditional' | 'transition' | 'end' | 'fuse' | 'route-failed' | 'error';

/** One hop of a compiled graph, in the priority order the machine tries them. */
export interface MachineEdge {
  /** The node id the hop leaves. */
  from: string;
  /** A node id, or a final state: `completed`, `maxSteps`, `failed`. */
  to: string;
  /** The XState state keys of both ends (unique even where a sequential workflow repeats a node id). */
  fromKey: string;
  toKey: string;
  /** True when `to` is a final state rather than a node. */
  toFinal: boolean;
  kind: MachineEdgeKind;
  /** The XState guard that picks the hop (`{ type, params }` or a name); null when unguarded. */
  guard: string | { type: string; params: Record<string, unknown> } | null;
  /** The 0-based conditional group or transition index. */
  index?: number;
  /** Route-map keys that lead here (a group without a route map: the router returns the node id). */
  keys?: string[];
  /** For a transition: whether it has a condition (false: always taken when reached). */
  conditional?: boolean;
}

/**
 * A node of a compiled graph: its id, its XState state key, and its kind: `node` (invokes its actor),
 * `human` (waits for a reply), `coordinator` (runs its specialist graphs in parallel and joins them)
 * or `fork` (a typed workflow's fork and join: its branch steps run in parallel inside it).
 */
export interface MachineNode {
  id: string;
  key: string;
  kind: 'node' | 'human' | 'coordinator' | 'fork';
  /** The node actor's name (`src`; a coordinator's join actor); null for human nodes, which have none. */
  actor: string | null;
  /** A coordinator's specialists (task kind and graph name) or a fork's branches (node id and step name), which run in parallel inside it. */
  parts?: NodePart[];
}

/** The shape of a compiled graph: nodes and the hops between them, read from its machine. */
export interface MachineGraph {
  graph: string;
  /** `workflow` for a typed `Workflow`'s machine. */
  kind: 'graph' | 'sequential' | 'workflow';
  /** The start node id (null for an empty sequential workflow). */
  start: string | null;
  /** The fuse (null for sequential workflows, which have none). */
  maxSteps: number | null;
  nodes: MachineNode[];
  edges: MachineEdge[];
  finalStates: string[];
}

type Hop = { guard?: MachineEdge['guard']; target?: string };
type StateConfig = { invoke?: { src: string; onDone?: Hop[]; onError?: Hop | Hop[] }; always?: Hop[]; states?: Record<string, StateConfig | undefined> };

/** The actor a state (or one of its sub-states) invokes: a coordinator invokes its join in a sub-state. */
function invokedActor(state: StateConfig): string | null {
  if (state.invoke !== undefined) return state.invoke.src;
  for (const inner of Object.values(state.states ?? {})) {
    const found = inner === undefined ? null : invokedActor(inner);
    if (found !== null) return found;
  }
  return null;
}

/** The machine of a workflow, or the machine itself. */
export function machineOf(graph: RunnableGraph | GraphMachine): GraphMachine {
  return 'toMachine' in graph ? graph.toMachine() : graph;
}

/** Reads the hop list of one node from the machine config. */
function nodeEdges(spec: GraphSpec, node: CompiledNode, state: StateConfig, root: string): MachineEdge[] {
  const target = (hop: Hop) => {
    const key = (hop.target ?? '').slice(root.length + 1);
    const to = spec.byKey.get(key);
    return { to: to?.id ?? key, toKey: key, toFinal: to === undefined };
  };
  // Human nodes and nodes that compile themselves (a coordinator) route from their `routing` sub-state.
  const hops = state.invoke?.onDone ?? state.states?.routing?.always ?? [];
  const unconditional = node.transitions.some((t) => t.condition === null);
  const edges: MachineEdge[] = [];
  for (const hop of hops) {
    const guard = hop.guard ?? null;
    const base = { from: node.id, fromKey: node.key, ...target(hop), guard };
    if (guard === 'fuseSpent') edges.push({ ...base, kind: 'fuse' });
    else if (guard === 'routeFailed') edges.push({ ...base, kind: 'route-failed' });
    else if (guard === null) {
      // After an unconditional transition the end can never be reached; it is left out.
      if (!unconditional) edges.push({ ...base, kind: 'end' });
    } else if (typeof guard === 'object' && guard.type === 'routedTo') {
      const params = guard.params as { kind: 'conditional' | 'transition'; index: number; to: string; keys?: string[] };
      const edge: MachineEdge = { ...base, kind: params.kind, index: params.index };
      if (params.kind === 'conditional') edge.keys = params.keys ?? [params.to];
      else edge.conditional = node.transitions[params.index]?.condition !== null;
      edges.push(edge);
    }
  }
  // A node's failure: the unguarded last hop of its onError (a budget's refusal, tried before it, is not drawn).
  const onError = state.invoke?.onError;
  const failure = Array.isArray(onError) ? onError[onError.length - 1] : onError;
  if (failure !== undefined) edges.push({ from: node.id, fromKey: node.key, ...target(failure), guard: null, kind: 'error' });
  return edges;
}

/**
 * The nodes and hops of a graph as its compiled machine has them: for each node, the fuse, the
 * routing failure, every target of its conditional groups (with their route keys) and transitions
 * in priority order, the end, and its failure. Useful to draw a graph or to diff two versions.
 *
 * @example
 * const { nodes, edges } = machineGraph(graph);
 * edges.filter((e) => e.kind === 'conditional').map((e) => `${e.from} -${e.keys?.join('|')}-> ${e.to}`);
 */
export function machineGraph(graph: RunnableGraph | GraphMachine): MachineGraph {
  const machine = machineOf(graph);
  const spec = specOf(machine);
  const config = machine.config as { id: string; states: Record<string, StateConfig> };
  const root = `#${config.id}`;
  const nodes: MachineNode[] = [];
  const edges: MachineEdge[] = [];
  for (const node of spec.nodes) {
    const state = config.states[node.key] ?? {};
    if (isHumanNode(node.node)) nodes.push({ id: node.id, key: node.key, kind: 'human', actor: null });
    else if (isCompilableNode(node.node)) {
      nodes.push({ id: node.id, key: node.key, kind: node.node.fork === true ? 'fork' : 'coordinator', actor: invokedActor(state), parts: (node.node.parts ?? []).map((p) => ({ ...p })) });
    } else nodes.push({ id: node.id, key: node.key, kind: 'node', actor: invokedActor(state) ?? node.key });
    edges.push(...nodeEdges(spec, node, state, root));
  }
  return {
    graph: spec.name,
    kind: spec.io === undefined ? spec.kind : 'workflow',
    start: spec.start?.id ?? null,
    maxSteps: spec.fused ? spec.maxSteps : null,
    nodes,
    edges,
    finalStates: [...FINAL_STATES],
  };
}
