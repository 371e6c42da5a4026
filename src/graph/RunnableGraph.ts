import type { AgentRequest } from './AgentNode.js';
import type { GraphMachine } from './compileMachine.js';
import type { RunOptions } from './RunOptions.js';
import type { WorkflowEvent } from './WorkflowEvent.js';
import type { WorkflowRun } from './WorkflowRun.js';
import type { RunStore } from '../persistence/RunStore.js';

/** What `StateGraph` and `SequentialWorkflow` have in common; `WorkflowAgent` wraps either. */
export interface RunnableGraph {
  readonly name: string;
  run(input: string | AgentRequest, options?: RunOptions): Promise<WorkflowRun>;
  stream(input: string | AgentRequest, options?: RunOptions): AsyncIterable<WorkflowEvent>;
  toMachine(): GraphMachine;
  /**
   * The model names a run may choose (`request.metadata.model`, `--model`): those of the graph's
   * `modelNode`s, the default first. Absent or empty: the graph offers no model choice.
   */
  readonly models?: readonly string[];
  /**
   * Called by `RunManager` and `recoverRuns` after a leg that left the run waiting (and for each
   * waiting run when recovering), so a front end can watch that wait (a typed workflow's HumanGate
   * deadline). Optional; graphs have none.
   */
  watchWait?(runId: string, options: { store?: RunStore; owner?: string; leaseMs?: number }): void;
  /**
   * When the wait a stored run is at times out (epoch ms; a typed workflow's HumanGate deadline),
   * or null: what the run queue schedules a delayed job by, so the wait times out with no process
   * of the run alive. Optional; graphs have none.
   */
  waitDeadline?(record: { status: string; snapshot: unknown }): number | null;
}

/** The key under which a front end that is not itself a `RunnableGraph` (a typed `Workflow`) gives its graph view. */
export const AS_GRAPH = Symbol.for('switchboard.asGraph');

/** A front end that runs on the graph engine through a `RunnableGraph` view of itself (a typed `Workflow`). */
export interface GraphSource {
  readonly name: string;
  [AS_GRAPH](): RunnableGraph;
}

/** What can be registered where graphs are run by name (a run manager, the workbench, a graphs module): a graph, or a typed workflow. */
export type RegisteredGraph = RunnableGraph | GraphSource;

/** The graph view of a registered graph: a typed workflow's view, or the graph itself. */
export function toRunnableGraph(graph: RegisteredGraph): RunnableGraph {
  const view = (graph as Partial<GraphSource>)[AS_GRAPH];
  return typeof view === 'function' ? view.call(graph) : (graph as RunnableGraph);
}
