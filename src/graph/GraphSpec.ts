import type { GraphNode, StateCondition, StateRouter } from './AgentNode.js';
import type { EdgeKind } from './WorkflowEvent.js';
import type { StateModel } from '../state/StateModel.js';
import type { GraphMachineContext, GraphMachineInput, GraphMachineOutput } from './GraphMachineContext.js';
import type { RunStatus } from './WorkflowRun.js';
import type { SerializedError } from '../errors/SwitchboardError.js';

/**
 * How a front end other than StateGraph (the typed `Workflow` builder) adapts the machine's edges:
 * the input it accepts, the final status it records and the output it resolves to. Absent for graphs.
 */
export interface MachineIo {
  /** Turns the front end's machine input into the engine's (called only for input without `request`). */
  input(raw: unknown): GraphMachineInput;
  /** The status to record on reaching a final state (e.g. `max-steps` for a spent loop fuse). */
  finalStatus(context: GraphMachineContext, status: RunStatus): RunStatus;
  /** The error to record with that status when the run's context holds none (a step that ended the run `failed`). */
  finalError?(context: GraphMachineContext, status: RunStatus): SerializedError | null;
  /** The front end's own plain-data graph (a typed workflow's `WorkflowGraph`), shown beside the machine in exports. */
  graph?: unknown;
  /** The executed node ids as the front end names them (a typed workflow's step names), for the output at a wait as at the end. */
  path?(ids: readonly string[]): string[];
  /** Adds the front end's fields to the machine's output (the engine's fields are kept). */
  output(base: GraphMachineOutput, context: GraphMachineContext): GraphMachineOutput;
}

/** One possible hop out of a node, in priority order. Guards in the machine refer to it by index. */
export interface RouteEntry {
  kind: Exclude<EdgeKind, 'end'>;
  /** Group index for `conditional`, transition index for `transition`. */
  index: number;
  to: string;
  /** The target's state key, or null for `END`. */
  toKey: string | null;
  /** For a conditional group with a route map: the keys that lead to `to`. */
  keys?: string[];
}

/** A conditional-edge group after validation. */
export interface CompiledGroup {
  router: StateRouter;
  routeMap: ReadonlyMap<string, string> | null;
  /** Target id → index in the node's `routes`. */
  entries: ReadonlyMap<string, number>;
}

/** A transition after validation. */
export interface CompiledTransition {
  to: string;
  condition: StateCondition | null;
  entry: number;
}

/** A node with its outgoing routing, ready to become an XState state. */
export interface CompiledNode {
  id: string;
  key: string;
  node: GraphNode;
  groups: CompiledGroup[];
  transitions: CompiledTransition[];
  routes: RouteEntry[];
  /** The graph's `strictRoutes`: an answer missing from a route map fails the step instead of skipping its group. */
  strictRoutes: boolean;
}

/** A validated graph: what the machine compiler consumes. */
export interface GraphSpec {
  name: string;
  kind: 'graph' | 'sequential';
  start: CompiledNode | null;
  nodes: CompiledNode[];
  /** Nodes by state key (ids may repeat in a sequential workflow; keys never do). */
  byKey: ReadonlyMap<string, CompiledNode>;
  maxSteps: number;
  /** False for sequential workflows, which never loop and have no fuse. */
  fused: boolean;
  /** What the shared state may hold (declared keys and reducers, or any JSON). */
  state: StateModel;
  /** The node a run goes to when one of its budgets is spent (`onBudgetExceeded`); absent or null: the run ends `budget-exceeded`. */
  budgetNode?: CompiledNode | null;
  /** The front end's input/output adapter (the typed Workflow builder's); absent for graphs. */
  io?: MachineIo;
}
