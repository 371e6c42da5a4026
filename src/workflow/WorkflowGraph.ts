/** The kind of a workflow graph node. */
export type WorkflowNodeType = 'step' | 'gateway' | 'decision' | 'gate' | 'loop-entry' | 'loop-check' | 'loop-exit' | 'fork' | 'join';

/** Why an edge is taken. */
export type WorkflowEdgeCondition = 'unconditional' | 'boolean' | 'option' | 'gate' | 'branch' | 'error' | 'loop-continue' | 'loop-exit' | 'back-edge';

/** One node of a {@link WorkflowGraph}. */
export interface WorkflowGraphNode {
  /** Unique in the graph (a step's name, suffixed `#2`, `#3`… when a name repeats). */
  id: string;
  type: WorkflowNodeType;
  /** The step's name (for `step` nodes) or what the node stands for. */
  label: string;
  /** For `step` nodes: `agent` or `deterministic`. */
  kind?: 'agent' | 'deterministic';
  /** For `step` nodes: whether the step declares an input / output schema. */
  typed?: { input: boolean; output: boolean };
  /** For typed `step` nodes: the JSON Schemas of the declared input / output (what `assertTypeCompatible` compares). */
  schemas?: { input?: Record<string, unknown>; output?: Record<string, unknown> };
  /** For a step that is a built workflow: its own graph. */
  subWorkflow?: string;
}

/** One edge of a {@link WorkflowGraph}. */
export interface WorkflowGraphEdge {
  from: string;
  to: string;
  condition: WorkflowEdgeCondition;
  /** `true` / `false` for a branch, the option name for a decision, the gate decision, the error matched… */
  label?: string;
}

/**
 * A workflow as plain data (JSON): nodes, edges, where it starts and where it finishes. What
 * `Workflow.compile()` returns, what its XState machine is compiled from, and what can be checked
 * in CI without running anything (`assertTypeCompatible`, snapshots).
 */
export interface WorkflowGraph {
  name: string;
  nodes: WorkflowGraphNode[];
  edges: WorkflowGraphEdge[];
  startNode: string;
  finishNode: string;
  /**
   * The step a run goes to when one of its budgets is spent (`onBudgetExceeded`); it has no edge
   * into it (any node can lead there) and an edge on to the finish. Absent when the workflow names none.
   */
  budgetNode?: string;
}
