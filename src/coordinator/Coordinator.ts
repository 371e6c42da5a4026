import { z } from 'zod';
import type { AgentRequest } from '../graph/AgentNode.js';
import { COMPILE_NODE, type CompilableNode, type NodeCompileScope } from '../graph/CompilableNode.js';
import type { RunnableGraph } from '../graph/RunnableGraph.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import { MODEL_NAMES, RUN_MODEL_KEY } from '../graph/modelNode.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { CoordinatorTask } from './CoordinatorTask.js';
import { dispatchState } from './dispatchState.js';
import type { PersistedJoin } from './JoinState.js';
import { failurePolicy, type FailurePolicy, type OnFailure } from './FailurePolicy.js';

/** Options for {@link Coordinator}. */
export interface CoordinatorOptions {
  /** Specialist subgraphs by task kind. */
  specialists: Record<string, RunnableGraph>;
  /** Refuse a plan with more tasks than this (default: no limit; every task runs at once). */
  maxTasks?: number;
  /** What a failed specialist does to the others and to the run (default `continue`). See {@link OnFailure}. */
  onFailure?: OnFailure;
  /** The run fails unless at least this many tasks complete (default 0); it fails as soon as that can no longer happen. */
  minCompleted?: number;
  /** Time limit of one attempt of a task, in ms (a task's own `timeoutMs` wins). Waiting for a person does not count. */
  taskTimeoutMs?: number;
  /** Further attempts after a task fails or times out (default 0; a task's own `retries` wins). */
  retries?: number;
  /**
   * Parent state keys copied (as JSON) into each specialist's otherwise empty state. With
   * `RUN_MODEL_KEY` (`runModel`) among them, the specialists run on the run's chosen model (the one
   * in the state, else the one the run was started with, which the dispatch then records), and the
   * graph offers the specialists' models (`StateGraph.models`).
   */
  shareState?: readonly string[];
  /** Specialist state keys copied into its result's `output`. */
  exportState?: readonly string[];
  /** Where the planned tasks are read from (default `tasks`). */
  tasksKey?: string;
  /** Where the results are written, in task order (default `specialistResults`). */
  resultsKey?: string;
  /**
   * Why a specialist's final state asks for a human, or null. Default: `needsHuman: true` (with
   * `handoffReason`), or a `handoff: { reason }` record. One that throws fails the run, whatever
   * `onFailure` says: a `WorkflowExecutionError` (`node_failed`) naming the coordinator node, the
   * task and what was thrown; the other tasks are cancelled.
   */
  needsHuman?: (state: Record<string, unknown>) => string | null;
}

/** The default human check: `needsHuman: true` (+ `handoffReason`), or `handoff: { reason }`. */
export function defaultNeedsHuman(state: Record<string, unknown>): string | null {
  if (state.needsHuman === true) return typeof state.handoffReason === 'string' ? state.handoffReason : 'the specialist asked for a human';
  const handoff = state.handoff as { reason?: unknown } | null | undefined;
  return typeof handoff?.reason === 'string' ? handoff.reason : null;
}

/** State keys the engine writes at every node: a plan or results kept there would be overwritten. */
const ENGINE_KEYS: ReadonlySet<string> = new Set(['currentNodeId', 'currentRequest', 'lastResult', 'lastNodeId']);

/** A coordinator's tasksKey or resultsKey, checked: not a key the engine writes itself. */
function stateKey(option: 'tasksKey' | 'resultsKey', key: string): string {
  if (ENGINE_KEYS.has(key)) throw new GraphDefinitionError(`Coordinator: ${option} "${key}" is a key the engine writes after every node; choose another state key`);
  return key;
}

/** Plans tasks from a request: return `{ kind, input }` objects (at most `maxTasks`, if set). */
export type TaskPlanner = (ctx: WorkflowContext, request: AgentRequest) => unknown;

/**
 * Splits a composite request into typed tasks and dispatches each to its specialist subgraph as a
 * child actor with an isolated session, state (a whitelisted copy of the parent's) and trace path
 * (`root/<kind>[n]`). Every task's specialist runs at once, however many there are, under one join
 * actor that keeps task order and settles each task as it ends. A failed specialist is handled by
 * the failure policy (`onFailure`, `minCompleted`, `taskTimeoutMs`, `retries`). A specialist that
 * waits at a human node makes the run wait (the reason names it and its path); resuming the run
 * with a reply continues that specialist. A specialist that sets `needsHuman` in its state is
 * reported so the graph can route to a human.
 *
 * @example
 * const coordinator = new Coordinator({ specialists: { rag: policyGraph(), tool: ordersGraph() }, shareState: ['customer'] });
 * graph
 *   .addNode('multi_plan', coordinator.planNode(splitRequest))
 *   .addNode('specialist', coordinator.dispatchNode())
 *   .addEdge('multi_plan', 'specialist')
 *   .addEdge('specialist', 'multi_review');
 */
export class Coordinator {
  readonly specialists: Readonly<Record<string, RunnableGraph>>;
  readonly maxTasks: number;
  /** What failed specialists do to the dispatch. */
  readonly policy: FailurePolicy;
  readonly tasksKey: string;
  readonly resultsKey: string;
  readonly #shareState: readonly string[];
  readonly #exportState: readonly string[];
  readonly #needsHuman: (state: Record<string, unknown>) => string | null;
  /** The schema of a plan, built once: zod schemas are costly to build, and every dispatch checks its plan. */
  readonly #plan: z.ZodType<CoordinatorTask[]>;

  constructor(options: CoordinatorOptions) {
    const kinds = Object.keys(options.specialists ?? {});
    if (kinds.length === 0) throw new GraphDefinitionError('Coordinator: give at least one specialist subgraph in `specialists` (kind → graph)');
    for (const kind of kinds) {
      const graph = options.specialists[kind];
      if (graph === undefined || typeof graph.toMachine !== 'function') {
        throw new GraphDefinitionError(`Coordinator: specialist "${kind}" must be a StateGraph or SequentialWorkflow`);
      }
      if (!/^[A-Za-z0-9_-]+$/.test(kind)) throw new GraphDefinitionError(`Coordinator: specialist kind "${kind}" may only use letters, digits, "_" and "-"`);
    }
    const maxTasks = options.maxTasks ?? Number.POSITIVE_INFINITY;
    if (maxTasks !== Number.POSITIVE_INFINITY && (!Number.isInteger(maxTasks) || maxTasks < 1)) {
      throw new GraphDefinitionError(`Coordinator: maxTasks must be a positive integer (or left out for no limit); received ${String(maxTasks)}`);
    }
    this.policy = failurePolicy(options);
    this.specialists = { ...options.specialists };
    this.maxTasks = maxTasks;
    this.#plan = CoordinatorTask.array().max(maxTasks);
    this.tasksKey = stateKey('tasksKey', options.tasksKey ?? 'tasks');
    this.resultsKey = stateKey('resultsKey', options.resultsKey ?? 'specialistResults');
    if (this.tasksKey === this.resultsKey) {
      // The dispatch clears the results key as it starts: the plan would be gone and nothing dispatched.
      throw new GraphDefinitionError(`Coordinator: tasksKey and resultsKey must be different state keys; both are "${this.tasksKey}"`);
    }
    this.#shareState = [...(options.shareState ?? [])];
    this.#exportState = [...(options.exportState ?? [])];
    this.#needsHuman = options.needsHuman ?? defaultNeedsHuman;
  }

  /** Validates planned tasks: an array (of at most `maxTasks`, if set) of `{ kind, input }` with known kinds. */
  parseTasks(value: unknown): CoordinatorTask[] {
    const parsed = this.#plan.safeParse(value);
    if (!parsed.success) {
      const limit = Number.isFinite(this.maxTasks) ? `at most ${this.maxTasks} ` : '';
      throw new WorkflowExecutionError(`coordinator tasks are not valid: ${z.prettifyError(parsed.error)}; plan ${limit}tasks { kind, input }`, { code: 'invalid_tasks' });
    }
    // Own keys only: `in` would take "constructor", "toString" or "__proto__" for a specialist.
    const unknown = parsed.data.find((t) => !Object.hasOwn(this.specialists, t.kind));
    if (unknown !== undefined) {
      throw new WorkflowExecutionError(`coordinator task kind "${unknown.kind}" has no specialist; known kinds: ${Object.keys(this.specialists).join(', ')}`, { code: 'invalid_tasks' });
    }
    return parsed.data;
  }

  /** A node that runs `planner`, validates its tasks and writes them to the state for the dispatch node. */
  planNode(planner: TaskPlanner): (ctx: WorkflowContext, request: AgentRequest) => Promise<null> {
    return async (ctx, request) => {
      ctx.put(this.tasksKey, this.parseTasks(await planner(ctx, request)));
      return null;
    };
  }

  /** The node that dispatches the planned tasks to specialists in parallel and joins their results. */
  dispatchNode(): CompilableNode {
    const config = {
      specialists: this.specialists,
      maxTasks: this.maxTasks,
      plan: this.#plan,
      shareState: this.#shareState,
      exportState: this.#exportState,
      tasksKey: this.tasksKey,
      resultsKey: this.resultsKey,
      needsHuman: this.#needsHuman,
      policy: this.policy,
    };
    const specialists = this.specialists;
    const sharesModel = this.#shareState.includes(RUN_MODEL_KEY);
    const node: CompilableNode & { readonly [MODEL_NAMES]: readonly string[] } = {
      name: 'coordinator',
      // Only a shared `runModel` reaches the specialists: without it a chosen model would be ignored.
      get [MODEL_NAMES](): readonly string[] {
        return sharesModel ? [...new Set(Object.values(specialists).flatMap((graph) => graph.models ?? []))] : [];
      },
      parts: Object.entries(specialists).map(([kind, graph]) => ({ name: kind, graph: graph.name })),
      [COMPILE_NODE]: (scope: NodeCompileScope) => dispatchState(config, scope),
      childGraphs: () => Object.values(specialists),
      waitingChild(snapshot: unknown, nodeId: string) {
        // The join is the dispatch state's child under the node's id; it names the task it asked about.
        const join = (snapshot as { children?: Record<string, { snapshot?: PersistedJoin }> }).children?.[nodeId]?.snapshot;
        const index = join?.context.asked;
        if (join === undefined || index === null || index === undefined) return null;
        const child = join.children[index];
        const kind = join.context.tasks[index]?.kind;
        const graph = kind !== undefined && Object.hasOwn(specialists, kind) ? specialists[kind] : undefined;
        return child === undefined || graph === undefined ? null : { machine: graph.toMachine(), snapshot: child.snapshot };
      },
      execute() {
        throw new GraphDefinitionError('a coordinator dispatch node runs as part of a StateGraph machine; add it with addNode');
      },
    };
    return node;
  }
}
