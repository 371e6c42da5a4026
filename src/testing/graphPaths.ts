import { getShortestPaths, getSimplePaths } from '@xstate/graph';
import { initialTransition, transition, type EventFromLogic, type SnapshotFrom } from 'xstate';
import { compileModel, isGraphModel, specOf, type GraphMachine } from '../graph/compileMachine.js';
import { END } from '../graph/END.js';
import type { CompiledNode, GraphSpec } from '../graph/GraphSpec.js';
import type { GraphMachineEvent, GraphMachineInput, NodeActorOutput } from '../graph/GraphMachineContext.js';
import { isHumanNode } from '../graph/humanNode.js';
import { isCompilableNode } from '../graph/CompilableNode.js';
import { readPath } from '../graph/PathLog.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';
import type { EdgeKind } from '../graph/WorkflowEvent.js';

/** One hop of a graph: from a node to a node (or `END`) by a conditional group, a transition, or the end (nothing matched). */
export interface GraphHop {
  from: string;
  to: string;
  kind: EdgeKind;
  /** The group (conditional) or transition index on `from`; absent for the end. */
  index?: number;
  /** For a conditional group with a route map: the answers that lead to `to`. */
  routeKeys?: string[];
}

/** A generated path: the events from the start, the node each was sent at, and the hops taken. */
export interface GraphPath {
  /** Each event of the path, with the node it was sent at (a state key for a final state). */
  steps: Array<{ node: string; event: EventFromLogic<GraphMachine> }>;
  /** The hops the path takes, in order. */
  hops: GraphHop[];
  /** Where the path ends: a node id, or a final state (`completed`, `maxSteps`, `failed`, `cancelled`). */
  end: string;
  /** The snapshot it ends in (feed it to `transition()` to go on from there). */
  snapshot: SnapshotFrom<GraphMachine>;
}

/** Options for {@link graphPathOptions} and {@link graphPaths}. */
export interface GraphPathOptions {
  /** `shortest` (default): the shortest path to every state; `simple`: every path that visits no state twice. */
  algorithm?: 'shortest' | 'simple';
  /** The machine input of the generated run (default: request `"path test"`, empty state). */
  input?: GraphMachineInput;
  /** Replies tried at each human node (default `["ok"]`; a node with a reply schema needs valid ones). */
  replies?: Readonly<Record<string, readonly unknown[]>>;
  /** Also try each node failing (default true). */
  failures?: boolean;
}

type Source = RunnableGraph | GraphMachine;
const machineOf = (graph: Source): GraphMachine => ('toMachine' in graph ? graph.toMachine() : graph);

/** Every hop of a graph, as its route tables list them (the end only for nodes that can reach it). */
export function graphHops(graph: Source): GraphHop[] {
  const hops: GraphHop[] = [];
  for (const node of specOf(machineOf(graph)).nodes) {
    for (const route of node.routes) {
      hops.push({ from: node.id, to: route.to, kind: route.kind, index: route.index, ...(route.keys ? { routeKeys: route.keys } : {}) });
    }
    if (!node.transitions.some((t) => t.condition === null)) hops.push({ from: node.id, to: END, kind: 'end' });
  }
  return hops;
}

const hopKey = (hop: GraphHop) => `${hop.from}|${hop.kind}|${hop.index ?? ''}|${hop.to}`;

/** The hops of `graph` no path takes (empty: the paths cover every edge). */
export function uncoveredHops(graph: Source, paths: readonly GraphPath[]): GraphHop[] {
  const taken = new Set(paths.flatMap((p) => p.hops.map(hopKey)));
  return graphHops(graph).filter((hop) => !taken.has(hopKey(hop)));
}

/** The node a snapshot stands at: its id, or the final state's name. */
function nodeAt(spec: GraphSpec, value: unknown): { key: string; node: CompiledNode | undefined; sub: unknown } {
  const key = typeof value === 'string' ? value : Object.keys(value as object)[0]!;
  const sub = typeof value === 'string' ? undefined : (value as Record<string, unknown>)[key];
  return { key, node: spec.byKey.get(key), sub };
}

/** The event a node's actor sends when it finishes with routing decision `entry` (-1: nothing matched). */
function done(node: CompiledNode, entry: number): GraphMachineEvent {
  const toEnd = entry === -1 || node.routes[entry]!.toKey === null;
  const output: NodeActorOutput = { result: null, durationMs: 0, decision: { entry, toEnd } };
  return { type: `xstate.done.actor.${node.id}`, output };
}

/**
 * The events worth sending at a snapshot of a graph's machine (or model): at a node, its actor
 * finishing with each of its routes, with nothing matched (when the node can end the graph), and
 * failing; at a human node, each reply of `options.replies`. A coordinator in the machine moves by
 * itself when it has nothing to dispatch; in the model it is a node like the others.
 */
export function graphPathEvents(graph: Source, options: Pick<GraphPathOptions, 'replies' | 'failures'> = {}) {
  const spec = specOf(machineOf(graph));
  return (snapshot: SnapshotFrom<GraphMachine>): GraphMachineEvent[] => {
    if (snapshot.status !== 'active') return [];
    const { node, sub } = nodeAt(spec, snapshot.value);
    if (node === undefined) return [];
    if (isHumanNode(node.node)) {
      if (sub !== 'waiting') return [];
      return (options.replies?.[node.id] ?? ['ok']).map((reply) => ({ type: 'human.reply', reply }) as GraphMachineEvent);
    }
    if (isCompilableNode(node.node) && !isGraphModel(snapshot.machine)) return [];
    const events = node.routes.map((_route, entry) => done(node, entry));
    if (!node.transitions.some((t) => t.condition === null)) events.push(done(node, -1));
    if (options.failures !== false) events.push({ type: `xstate.error.actor.${node.id}`, error: new Error(`${node.id} failed (generated path)`) });
    return events;
  };
}

/**
 * What a snapshot counts as for path generation: its state value and status. The context is left
 * out on purpose — `path` and `steps` grow every step, so with them no traversal would end.
 */
export function graphStateKey(snapshot: SnapshotFrom<GraphMachine>): string {
  return `${snapshot.status}:${JSON.stringify(snapshot.value)}`;
}

/**
 * The options that make `@xstate/graph` (`getShortestPaths`, `getSimplePaths`) and
 * `createTestModel` work on a graph: its events ({@link graphPathEvents}), the state key that ends
 * traversal ({@link graphStateKey}) and the machine input.
 *
 * @example
 * import { getShortestPaths } from '@xstate/graph';
 * const paths = getShortestPaths(graph.toMachine(), graphPathOptions(graph));
 * const model = createTestModel(graphModel(graph), graphPathOptions(graph));
 */
export function graphPathOptions(graph: Source, options: GraphPathOptions = {}) {
  return {
    events: graphPathEvents(graph, options),
    serializeState: graphStateKey,
    input: options.input ?? { request: 'path test' },
  };
}

/** The hop `from` → `to` takes: the route the node's actor chose (when `event` is its completion), else the first route to `to`. */
function hopBetween(from: CompiledNode, to: string, event: EventFromLogic<GraphMachine> | null): GraphHop | null {
  const output = (event as { output?: NodeActorOutput } | null)?.output;
  const chosen = output !== undefined && event!.type === `xstate.done.actor.${from.id}` ? output.decision.entry : null;
  if (chosen === -1 && to === END) return { from: from.id, to: END, kind: 'end' };
  const route = chosen !== null && chosen >= 0 && from.routes[chosen]?.to === to ? from.routes[chosen] : from.routes.find((r) => r.to === to);
  if (route !== undefined) return { from: from.id, to, kind: route.kind, index: route.index, ...(route.keys ? { routeKeys: route.keys } : {}) };
  return to === END ? { from: from.id, to: END, kind: 'end' } : null;
}

/**
 * The hops made between two snapshots: read from the nodes the run executed in between (its
 * `path`), so a node that moves on by itself (a coordinator with nothing to dispatch) counts too.
 */
function hopsBetween(spec: GraphSpec, before: SnapshotFrom<GraphMachine>, after: SnapshotFrom<GraphMachine>, event: EventFromLogic<GraphMachine>): GraphHop[] {
  const was = readPath(before.context.path);
  const now = readPath(after.context.path);
  const visited = [was.at(-1), ...now.slice(was.length)];
  const { key } = nodeAt(spec, after.value);
  if (key === 'completed') visited.push(END);
  const hops: GraphHop[] = [];
  for (let i = 0; i + 1 < visited.length; i++) {
    const from = visited[i] === undefined ? undefined : spec.nodes.find((n) => n.id === visited[i]);
    if (from === undefined) continue;
    const hop = hopBetween(from, visited[i + 1]!, i === 0 ? event : null);
    if (hop !== null) hops.push(hop);
  }
  return hops;
}

/**
 * A path of `@xstate/graph` as a {@link GraphPath}. Its events are replayed from the start with
 * `transition()`: the snapshots a traversal keeps stand for every snapshot with the same state key,
 * so only a replay shows what this very sequence of events does (the nodes it runs, its hops).
 */
function toGraphPath(machine: GraphMachine, spec: GraphSpec, input: GraphMachineInput, events: ReadonlyArray<EventFromLogic<GraphMachine>>): GraphPath {
  const steps: GraphPath['steps'] = [];
  const hops: GraphHop[] = [];
  let [snapshot] = initialTransition(machine, input);
  for (const event of events) {
    const { key, node } = nodeAt(spec, snapshot.value);
    const [next] = transition(machine, snapshot, event);
    steps.push({ node: node?.id ?? key, event });
    hops.push(...hopsBetween(spec, snapshot, next, event));
    snapshot = next;
  }
  const { key, node } = nodeAt(spec, snapshot.value);
  return { steps, hops, end: node?.id ?? key, snapshot };
}

/**
 * Generates path tests for a graph with `@xstate/graph`. `shortest` (the default) takes the
 * shortest path to every state the machine can reach and then each event possible there, so every
 * transition — every hop of the graph, every node failing, every reply tried — is taken by one
 * path; `simple` lists every path that visits no state twice. Each path carries the hops it takes:
 * `uncoveredHops(graph, paths)` is empty when every edge is covered. Replay a path with
 * `transition()`, or assert on where it ends. Works on the graph's machine (pass the graph or
 * `graph.toMachine()`) and on its model (`graphModel(graph)`), whose coordinators are plain nodes.
 *
 * @example
 * const paths = graphPaths(graph);
 * expect(uncoveredHops(graph, paths)).toEqual([]);
 * for (const path of paths.filter((p) => p.end === 'completed')) expect(path.snapshot.output?.status).toBe('completed');
 */
export function graphPaths(graph: Source, options: GraphPathOptions = {}): GraphPath[] {
  const machine = machineOf(graph);
  const spec = specOf(machine);
  const traversal = graphPathOptions(graph, options);
  const input = traversal.input;
  // Each traversal step holds the snapshot reached and the event that led there (the first: xstate.init).
  const eventsOf = (path: { steps: ReadonlyArray<{ event: EventFromLogic<GraphMachine> }> }) => path.steps.slice(1).map((step) => step.event);
  if (options.algorithm === 'simple') return getSimplePaths(machine, traversal).map((path) => toGraphPath(machine, spec, input, eventsOf(path)));
  const paths: GraphPath[] = [];
  for (const path of getShortestPaths(machine, traversal)) {
    paths.push(toGraphPath(machine, spec, input, eventsOf(path)));
    for (const event of traversal.events(path.state)) paths.push(toGraphPath(machine, spec, input, [...eventsOf(path), event]));
  }
  return paths;
}
