import type { AgentResult } from './AgentNode.js';
import type { SwitchboardError } from '../errors/SwitchboardError.js';
import type { QueuedSpecialist, WaitingSpecialist } from './GraphMachineContext.js';
import type { BudgetExceeded } from '../budget/Budget.js';

/**
 * How a run ended (or, for `waiting`, where it stopped). `budget-exceeded`: one of the run's budgets
 * was spent (see `WorkflowRun.budgetExceeded`). `aborted` ends only a typed `Workflow`'s run:
 * a step threw `WorkflowAbort` or was `Steps.terminate('aborted')` (its output is the degraded answer).
 */
export type RunStatus = 'completed' | 'max-steps' | 'waiting' | 'failed' | 'cancelled' | 'aborted' | 'budget-exceeded';

/** What a run with a budget has spent (see `RunOptions.budget`); kept across resumes. */
export interface BudgetSpent {
  /** Tokens of its model calls (input plus output). */
  tokens: number;
  /** US dollars its model calls cost at the run's prices. */
  costUsd: number;
  /** Steps made (the run's `steps`). */
  iterations: number;
  /** Active milliseconds (time waiting for a person not counted). */
  durationMs: number;
  /** Tokens by model. */
  models: Record<string, { input: number; output: number; total: number }>;
}

/** The outcome of `graph.run()`: every run ends with an explicit status. */
export interface WorkflowRun {
  runId: string;
  status: RunStatus;
  /** The last node's result, or null when no node produced one. */
  result: AgentResult | null;
  /** `result?.outputText ?? null`. */
  outputText: string | null;
  /** Node ids in execution order, including a node that failed or was cancelled. */
  path: string[];
  /** Node executions counted against the `maxSteps` fuse. */
  steps: number;
  /** The final shared state. */
  state: Map<string, unknown>;
  /** Set when the run `failed` (a Switchboard error whose `cause` is what was thrown). */
  error?: SwitchboardError;
  /**
   * Set when a callback that observes the run (a recorder, `onEvent`, `inspect`, the clock, a human
   * node's reason) failed: each was detached or replaced and the run went on. Code `callback_failed`.
   */
  callbackErrors?: SwitchboardError[];
  /**
   * Set when the run is `waiting`: the human node (or, when a coordinator's specialist waits, the
   * coordinator node and `specialist`: which one, where and at which node) and the reason. Resume it with `resumeRun`: with
   * the run's store, or without one for a run started without a store (held in this process).
   */
  waiting?: {
    nodeId: string;
    reason: string;
    specialist?: WaitingSpecialist;
    breakpoint?: 'before' | 'after';
    /** Set when the run waits for its specialists on the run queue (a worker continues it once they ended). */
    queued?: { runs: QueuedSpecialist[]; wakeAt: number | null };
  };
  /**
   * Set when a budget was spent: which one, its limit and what was spent. The status is then
   * `budget-exceeded` (`result` and `outputText` are the last completed node's), unless the graph
   * names an `onBudgetExceeded` node, which the run went to instead.
   */
  budgetExceeded?: BudgetExceeded;
  /** Set for a run with a budget: what it has spent so far. */
  spent?: BudgetSpent;
}
