import type { AgentRequest, AgentResult } from '../graph/AgentNode.js';
import { nextRequest } from '../graph/nextRequest.js';
import type { ForkLink } from '../graph/WorkflowEvent.js';
import type { RunStore, StoredRunStatus } from '../persistence/RunStore.js';
import { RunStateError } from '../errors/RunStateError.js';
import { describeValue } from '../graph/describeValue.js';
import { readRunHistory, type RunHistory } from './readRunHistory.js';

/** A stored run as it stood after one of its steps: see {@link stateAt}. */
export interface RunStateAt {
  runId: string;
  graph: string;
  /** The run's status now (not at the step). */
  status: StoredRunStatus;
  /** The step: 0 is before the first node, n after the n-th node completed. */
  step: number;
  /** The last step the run completed so far (a running run has more to come). */
  lastStep: number;
  /** The node that ran at this step (null at step 0). */
  nodeId: string | null;
  /** The node that ran next, when the log has it (null at the end, or while it is in flight). */
  nextNodeId: string | null;
  /** What that node's result was (null at step 0). */
  result: AgentResult | null;
  /** The request the next node gets (the handoff of this step's result). */
  request: AgentRequest;
  /** The whole shared state after the step, the engine's keys (`currentNodeId`, `lastResult`…) included. */
  state: Record<string, unknown>;
  /** When the step completed (the run's creation for step 0), epoch ms. */
  at: number;
  /** Set when the run is a fork: its parent and the step it was forked at. */
  forkOf: ForkLink | null;
}

/** Checks a step number against a run's history, or throws `step_out_of_range` saying which steps it has. */
export function checkStep(history: RunHistory, step: unknown): number {
  const last = history.steps.length;
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 0 || step > last) {
    const runId = history.record.runId;
    const more = history.record.status === 'running' || history.record.status === 'waiting' || history.record.status === 'interrupted' ? ` (it is ${history.record.status}: ${last} completed so far)` : '';
    throw new RunStateError(`run ${runId} has steps 0 to ${last}${more}; step must be a whole number in that range (0 is before the first node); received ${describeValue(step)}`, {
      code: 'step_out_of_range',
      runId,
    });
  }
  return step;
}

/** The state of a run's history after `step` (already checked). */
export function stateFromHistory(history: RunHistory, step: number): RunStateAt {
  let state: Record<string, unknown> = { ...history.initialState };
  let request = history.request;
  for (const s of history.steps.slice(0, step)) {
    state = { ...state };
    if (s.delta !== null) {
      for (const key of Object.keys(s.delta.set ?? {})) state[key] = s.delta.set[key];
      for (const key of s.delta.deleted ?? []) delete state[key];
    }
    // The engine's own keys, as it writes them around every step.
    state['currentNodeId'] = s.nodeId;
    state['currentRequest'] = s.request;
    state['lastResult'] = s.result;
    state['lastNodeId'] = s.nodeId;
    request = nextRequest(s.request, s.result);
  }
  const done = step === 0 ? null : history.steps[step - 1]!;
  const { record } = history;
  return {
    runId: record.runId,
    graph: record.graphName,
    status: record.status,
    step,
    lastStep: history.steps.length,
    nodeId: done?.nodeId ?? null,
    nextNodeId: history.steps[step]?.nodeId ?? null,
    result: done?.result ?? null,
    request,
    state,
    at: done?.at ?? record.createdAt,
    forkOf: history.forkOf,
  };
}

/**
 * The full state of a stored run after any step, rebuilt from its event log: the shared state,
 * the node that ran, its result and the request the next node gets. Step 0 is the state the run
 * started with; step n is after the n-th node completed (a human node completes when it gets its
 * reply). Works on every store and for running runs too (up to the steps they have completed).
 * Throws `run_not_found` for an unknown run and `step_out_of_range` for a step it does not have.
 *
 * @example
 * const at2 = await stateAt(store, runId, 2);
 * at2.nodeId; // the node whose step it was, e.g. 'classify'
 * at2.state.category; // the shared state after that step
 */
export async function stateAt(store: RunStore, runId: string, step: number): Promise<RunStateAt> {
  const history = await readRunHistory(store, runId);
  return stateFromHistory(history, checkStep(history, step));
}
