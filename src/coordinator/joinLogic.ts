import type { ActorLogic } from 'xstate';
import type { GraphMachineOutput, WaitingInfo } from '../graph/GraphMachineContext.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import type { JoinContext, JoinEvent, JoinInput, JoinSnapshot, PersistedJoin } from './JoinState.js';
import { JoinSteps, type JoinConfig } from './joinSteps.js';
import { endedResult } from './taskResults.js';

const DONE = 'xstate.done.actor.';
const ERROR = 'xstate.error.actor.';

/** A copy of the join's context that later steps (which write slots and results in place) cannot change. */
function copyContext(context: JoinContext): JoinContext {
  return { ...context, slots: context.slots.map((slot) => ({ ...slot })), results: [...context.results] };
}

/**
 * Runs a step of the join; when it throws (a fault of the join itself: user callbacks such as
 * `needsHuman` are caught where they are called and fail the dispatch as data), every
 * specialist still out is stopped first (and its stored run cancelled, on the queue), so that the
 * join's error, which fails the run, leaves none of them running (and writing events) after the run
 * has returned.
 */
function stoppingOnThrow<T>(steps: JoinSteps, run: () => T): T {
  try {
    return run();
  } catch (error) {
    steps.stopAll(true);
    throw error;
  }
}

/** The join's next snapshot after an event. */
function step(steps: JoinSteps, snapshot: JoinSnapshot, event: JoinEvent): JoinSnapshot {
  const { slots } = snapshot.context;
  const current = (e: { index: number; attempt: number }) => slots[e.index]?.attempt === e.attempt && slots[e.index]!.phase !== 'done';
  const type = event.type;
  if (type === 'xstate.stop') {
    steps.stopAll();
    return { ...snapshot, status: 'stopped' } as JoinSnapshot;
  }
  if (type.startsWith(DONE) || type.startsWith(ERROR)) {
    const { actorId, output, error } = event as { actorId?: string; output?: unknown; error?: unknown };
    const index = steps.indexOf(actorId);
    if (index === undefined) return snapshot;
    steps.ended(index, type.startsWith(DONE) ? { output: output as GraphMachineOutput } : { error });
  } else if (type === 'join.waiting' || type === 'join.running') {
    const e = event as { index: number; attempt: number; waiting?: WaitingInfo };
    if (!current(e)) return snapshot;
    steps.waited(e.index, e.waiting ?? null);
  } else if (type === 'join.queued') {
    const e = event as { index: number; attempt: number };
    if (!current(e) || slots[e.index]!.phase !== 'running') return snapshot;
    steps.queued(e.index);
  } else if (type === 'join.timeout') {
    const e = event as { index: number; attempt: number };
    if (!current(e) || slots[e.index]!.phase !== 'running') return snapshot;
    steps.timedOut(e.index);
  } else if (type === 'human.reply') {
    steps.reply(event as { type: 'human.reply'; reply: unknown });
  } else {
    return snapshot;
  }
  steps.askParent();
  return steps.next();
}

/**
 * The join of a coordinator's dispatch, as XState actor logic: one actor over N specialist child
 * actors, however many tasks there are. It starts every specialist, settles each as its
 * `xstate.done.actor.*` or `xstate.error.actor.*` event arrives (O(1) per task), retries and
 * times out attempts, applies the failure policy, and is done — with the results in task order —
 * once every task is. When every specialist still out waits for a person it tells its parent
 * (`coordinator.waiting`), and hands the parent's `human.reply` to the specialist it named.
 * Persisted with the run: its context plus the persisted snapshots of the specialists still out,
 * which are restored (and their nodes in flight re-run) with it.
 */
export function joinLogic(config: JoinConfig): ActorLogic<JoinSnapshot, JoinEvent, JoinInput> {
  return {
    getInitialSnapshot: (scope, input) => {
      const n = input.tasks.length;
      const context: JoinContext = {
        ...input,
        slots: input.tasks.map(() => ({ phase: 'running' as const, attempt: 1, deadline: null, remainingMs: null })),
        results: new Array<null>(n).fill(null),
        running: n,
        waiting: 0,
        done: 0,
        completed: 0,
        asked: null,
        failure: null,
        queued: 0,
        parked: false,
      };
      const snapshot: JoinSnapshot = { status: 'active', output: undefined, error: undefined, context, live: { refs: [], ids: new Map() } };
      const { minCompleted } = config.policy;
      if (minCompleted > n) {
        // Nothing could ever meet the minimum: no specialist is started.
        const plan = `the plan has ${n} task${n === 1 ? '' : 's'}`;
        const reason = `not started: ${plan} and minCompleted is ${minCompleted}`;
        context.results = input.tasks.map((task, index) => endedResult(task, index, `${input.parentRunId}/${task.kind}[${index + 1}]`, 'cancelled', reason, null, 0));
        context.slots.forEach((slot) => (slot.phase = 'done'));
        context.running = 0;
        context.done = n;
        context.failure = new WorkflowExecutionError(`coordinator "${input.nodeId}" needs at least ${minCompleted} completed tasks but ${plan}`, {
          code: 'too_few_completed',
          nodeId: input.nodeId,
        }).toJSON();
      }
      return new JoinSteps(config, scope, snapshot).next();
    },

    start: (snapshot, scope) => {
      if (snapshot.status !== 'active') return;
      const steps = new JoinSteps(config, scope, snapshot);
      stoppingOnThrow(steps, () => snapshot.context.slots.forEach((slot, index) => slot.phase !== 'done' && steps.start(index)));
    },

    transition: (snapshot, event, scope) => {
      if (snapshot.status !== 'active') return snapshot;
      const steps = new JoinSteps(config, scope, snapshot);
      return stoppingOnThrow(steps, () => step(steps, snapshot, event));
    },

    getPersistedSnapshot: (snapshot) => {
      const children: PersistedJoin['children'] = {};
      snapshot.live.refs.forEach((ref, index) => {
        if (ref !== undefined) children[index] = { id: ref.id, snapshot: ref.getPersistedSnapshot() };
      });
      return {
        status: snapshot.status,
        ...(snapshot.status === 'done' ? { output: snapshot.output } : {}),
        context: copyContext(snapshot.context),
        children,
      } as PersistedJoin as never;
    },

    restoreSnapshot: (persisted, scope) => {
      const stored = persisted as unknown as PersistedJoin;
      const context = copyContext(stored.context);
      if (context.remote) {
        // A new leg looks at every specialist on the queue again: none is known to be pending yet.
        context.slots.forEach((slot) => (slot.queued = false));
        context.queued = 0;
        context.parked = false;
      }
      const snapshot = {
        status: stored.status,
        output: stored.output,
        error: undefined,
        context,
        live: { refs: [], ids: new Map() },
      } as unknown as JoinSnapshot;
      const steps = new JoinSteps(config, scope as never, snapshot);
      for (const [index, child] of Object.entries(stored.children ?? {})) steps.create(Number(index), child);
      return snapshot;
    },
  };
}
