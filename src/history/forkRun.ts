import { randomUUID } from 'node:crypto';
import type { RunStore } from '../persistence/RunStore.js';
import { RunStateError } from '../errors/RunStateError.js';
import { InputError } from '../input/InputError.js';
import { nestsDeeperThan } from '../input/nestsDeeperThan.js';
import { MAX_STORED_DEPTH } from '../persistence/storedJson.js';
import { specOf, type GraphMachine } from '../graph/compileMachine.js';
import { isCompilableNode } from '../graph/CompilableNode.js';
import { isHumanNode } from '../graph/humanNode.js';
import type { RunOptions } from '../graph/RunOptions.js';
import { toRunnableGraph, type RegisteredGraph } from '../graph/RunnableGraph.js';
import type { StateDelta } from '../graph/SharedState.js';
import { startRun } from '../graph/startRun.js';
import type { ForkLink } from '../graph/WorkflowEvent.js';
import type { WorkflowRun } from '../graph/WorkflowRun.js';
import { loadRun, resumeRun } from '../graph/durable/resumeRun.js';
import { assertJson } from '../graph/assertJson.js';
import { describeThrown } from '../errors/SwitchboardError.js';
import { ACCUMULATED_COST, ACCUMULATED_TOKENS } from '../budget/Budget.js';
import { readRunHistory } from './readRunHistory.js';
import { checkStep, stateFromHistory } from './stateAt.js';
import { forkReplay, recordedReply } from './forkReplay.js';
import { FORK_OF } from './forkLink.js';

/** Where a fork starts: the parent's step, and optionally the shared state to go on with. */
export interface ForkOptions {
  /** The parent's step to fork at: 0 starts over from the run's input; n goes on after the n-th node. */
  at: number;
  /**
   * The whole shared state to go on with instead of the parent's at that step (keys left out are
   * removed). Checked against the graph's state like any write; the engine's own keys
   * (`currentNodeId`, `lastResult`…) are ignored.
   */
  state?: Record<string, unknown>;
}


/** The engine's keys: rebuilt by every step, never edited. */
const ENGINE_KEYS: ReadonlySet<string> = new Set(['currentNodeId', 'currentRequest', 'lastResult', 'lastNodeId', ACCUMULATED_TOKENS, ACCUMULATED_COST]);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The edited state checked against the graph's state model, as the writes that turn `current` into it. */
function editOf(machine: GraphMachine, edited: unknown, current: Record<string, unknown>): { values: Record<string, unknown>; delta: StateDelta } {
  if (edited === null || typeof edited !== 'object' || Array.isArray(edited)) {
    throw new InputError(`fork: state must be a JSON object of shared-state keys (the whole state to go on with); received ${Array.isArray(edited) ? 'an array' : edited === null ? 'null' : typeof edited}`);
  }
  const model = specOf(machine).state;
  // A value nested deeper than a run can store is refused before assertJson walks it: tens of
  // thousands of levels would overflow its recursion. Measured without recursion; the state check,
  // which stops at that depth, refuses it naming the key (state_not_json).
  for (const [key, value] of Object.entries(edited)) {
    if (!nestsDeeperThan(value, MAX_STORED_DEPTH + 1)) continue;
    if (!ENGINE_KEYS.has(key)) model.check(key, value, null);
    throw new InputError(`fork: state key "${key}" is nested more than ${MAX_STORED_DEPTH} levels deep (objects and arrays inside each other); flatten it or leave it out`);
  }
  try {
    assertJson(edited, 'state');
  } catch (error) {
    throw new InputError(`fork: ${describeThrown(error)}`, error);
  }
  const values: Record<string, unknown> = {};
  const delta: StateDelta = { set: {}, deleted: [] };
  for (const key of Object.keys(edited)) {
    if (ENGINE_KEYS.has(key)) continue;
    // Throws a StateValidationError naming the key (state_invalid, state_undeclared, state_not_json).
    values[key] = model.check(key, (edited as Record<string, unknown>)[key], null);
    if (!same(values[key], current[key])) delta.set[key] = values[key];
  }
  for (const key of Object.keys(current)) if (!ENGINE_KEYS.has(key) && !(key in values)) delta.deleted.push(key);
  return { values, delta };
}

/**
 * Starts a new stored run from a step of another: the parent's steps up to `at` are replayed from
 * its log (their results and state writes, without executing the nodes again, so no side effect
 * repeats), human nodes among them get the replies they got, and the fork goes on from there —
 * with `state` instead of the parent's state when given (routing after step `at` sees it). Its
 * `run.started` event names the parent and the step (`parentRunId`, `forkedAt` in run JSON); the
 * parent is only read. Steps in flight in a running parent cannot be forked at, completed ones can.
 * Throws `run_not_found`, `step_out_of_range`, `graph_changed`, a `StateValidationError` naming a
 * bad key of `state`, and `fork_unsupported` for an edit at a human node's or coordinator's step.
 *
 * @example
 * const fork = await forkRun(graph, runId, { at: 2, state: { ...before.state, category: 'refund' } }, { store });
 */
export async function forkRun(graph: RegisteredGraph, runId: string, fork: ForkOptions, options: RunOptions & { store: RunStore }): Promise<WorkflowRun> {
  const machine = toRunnableGraph(graph).toMachine();
  const { store } = options;
  await loadRun(store, machine, runId);
  const history = await readRunHistory(store, runId);
  const at = checkStep(history, (fork as Partial<ForkOptions> | null)?.at);
  const current = stateFromHistory(history, at).state;
  let initial = history.initialState;
  let edit: StateDelta | null = null;
  if (fork.state !== undefined) {
    const checked = editOf(machine, fork.state, current);
    if (at === 0) initial = checked.values;
    else {
      const node = specOf(machine).nodes.find((n) => n.id === history.steps[at - 1]!.nodeId)?.node;
      if (isHumanNode(node) || isCompilableNode(node)) {
        throw new RunStateError(`step ${at} of run ${runId} is node "${history.steps[at - 1]!.nodeId}", a human node or a coordinator, whose state cannot be edited in a fork; fork at step ${at - 1} or ${at + 1} instead`, {
          code: 'fork_unsupported',
          runId,
        });
      }
      edit = checked.delta;
    }
  }
  const forkId = options.runId ?? randomUUID();
  // The edit is kept in the link (in the fork's run.started) for a fork that continues after a crash.
  const link: ForkLink = { runId, step: at, ...(edit === null ? {} : { edit }) };
  const runner = forkReplay(machine, forkId, link, history).runner(options.stepRunner ?? null);
  const record = history.record;
  const maxSteps = (record.snapshot as { context?: { maxSteps?: unknown } } | null)?.context?.maxSteps;
  const start: RunOptions & { [FORK_OF]: ForkLink } = {
    ...options,
    runId: forkId,
    state: initial,
    stepRunner: runner,
    ...(typeof maxSteps === 'number' && options.maxSteps === undefined ? { maxSteps } : {}),
    [FORK_OF]: link,
  };
  let run = await startRun(machine, history.request, start, false);
  // A human node among the replayed steps gets the reply the parent got (resumeRun gives it); the fork goes on.
  const { store: _store, runId: _id, state: _state, maxSteps: _max, budget: _budget, breakpoints: _breakpoints, ...rest } = options;
  while (run.status === 'waiting' && run.steps <= at && run.waiting?.specialist === undefined && run.waiting?.breakpoint === undefined && recordedReply(machine, history, run.steps) !== null) {
    run = await resumeRun(machine, forkId, undefined, { ...rest, store });
  }
  return run;
}
