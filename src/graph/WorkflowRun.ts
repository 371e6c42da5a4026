import type { AgentResult } from './AgentNode.js';
import type { SwitchboardError } from '../errors/SwitchboardError.js';
import type { WaitingSpecialist } from './GraphMachineContext.js';

/**
 * How a run ended (or, for `waiting`, where it stopped). `aborted` ends only a typed `Workflow`'s run:
 * a step threw `WorkflowAbort` or was `Steps.terminate('aborted')` (its output is the degraded answer).
 */
export type RunStatus = 'completed' | 'max-steps' | 'waiting' | 'failed' | 'cancelled' | 'aborted';

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
  waiting?: { nodeId: string; reason: string; specialist?: WaitingSpecialist };
}
