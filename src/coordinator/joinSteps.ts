import type { ActorScope, AnyActorLogic, AnyActorRef } from 'xstate';
import type { GraphMachineContext, GraphMachineOutput, QueuedSpecialist, WaitingInfo } from '../graph/GraphMachineContext.js';
import type { PendingEvent, RunRuntime } from '../graph/RunRuntime.js';
import { runtimeOf } from '../graph/runtimeOf.js';
import { describeThrown, serializeError, type SerializedError } from '../errors/SwitchboardError.js';
import type { FailurePolicy } from './FailurePolicy.js';
import type { CoordinatorWaitingEvent, JoinEvent, JoinSnapshot } from './JoinState.js';
import { endedResult, isFailure, resultOf, summarize, taskLabel, type ResultConfig } from './taskResults.js';
import type { TaskResult } from './CoordinatorTask.js';
import { createSpecialistActor, specialistRunIdOf } from './createSpecialistActor.js';

/** What the join needs from its coordinator: the specialist machines, the results' shape and the policy. */
export interface JoinConfig extends ResultConfig {
  machines: Readonly<Record<string, AnyActorLogic>>;
  policy: FailurePolicy;
  /** The child of a task whose specialist runs on the queue (see `remoteSpecialist`). */
  remote: AnyActorLogic;
}

type Scope = ActorScope<JoinSnapshot, JoinEvent>;

/**
 * The join's steps over one snapshot: start, watch and stop specialists, time them out, settle
 * their results and apply the failure policy. Each step touches one task's slot and the counters,
 * so handling a completion is O(1) whatever the number of tasks; only a policy that cancels the
 * rest walks them all, once.
 */
export class JoinSteps {
  readonly #config: JoinConfig;
  readonly #scope: Scope;
  readonly #snapshot: JoinSnapshot;

  constructor(config: JoinConfig, scope: Scope, snapshot: JoinSnapshot) {
    this.#config = config;
    this.#scope = scope;
    this.#snapshot = snapshot;
  }

  get #ctx() {
    return this.#snapshot.context;
  }

  /** The run the dispatch belongs to: its runtime carries the events, clock and journal. */
  get #runtime(): RunRuntime {
    return runtimeOf(this.#scope.self._parent!);
  }

  #emit(event: Record<string, unknown> & { type: string }): void {
    const runtime = this.#runtime;
    if (runtime.listening) runtime.emit(this.#ctx.parentRunId, { ...event, nodeId: this.#ctx.nodeId } as PendingEvent);
  }

  #runIdOf(index: number): string {
    return specialistRunIdOf(this.#ctx, index);
  }

  /** Creates the specialist actor of a task (from its persisted snapshot when restoring); not started. */
  create(index: number, persisted?: { id: string; snapshot: unknown }): AnyActorRef {
    const source = { ctx: this.#ctx, machines: this.#config.machines, remote: this.#config.remote, parent: this.#scope.self, direct: this.#runtime.direct };
    const { id, ref } = createSpecialistActor(source, index, persisted);
    this.#snapshot.live.refs[index] = ref;
    this.#snapshot.live.ids.set(id, index);
    return ref;
  }

  /**
   * Starts a task's specialist, reporting each change of its wait to the join. A specialist known
   * to wait (restored waiting) is not reported again; any other wait is, even one it reached
   * before it started.
   */
  start(index: number): void {
    const ref = this.#snapshot.live.refs[index] ?? this.create(index);
    const slot = this.#ctx.slots[index]!;
    if (this.#ctx.remote) {
      // A specialist on the queue reports only its end (or that it is pending), never a wait of its own.
      ref.start();
      if (slot.phase === 'running') this.arm(index);
      return;
    }
    const attempt = slot.attempt;
    const self = this.#scope.self;
    let last: WaitingInfo | null = slot.phase === 'waiting' ? ((ref.getSnapshot() as { context?: GraphMachineContext }).context?.waiting ?? null) : null;
    ref.subscribe({
      next: (snapshot: { status: string; context: GraphMachineContext }) => {
        if (snapshot.status !== 'active') return;
        const waiting = snapshot.context.status === 'waiting' ? snapshot.context.waiting : null;
        if (waiting === last) return;
        last = waiting;
        self.send(waiting === null ? { type: 'join.running', index, attempt } : { type: 'join.waiting', index, attempt, waiting });
      },
      // The error reaches the join as XState's error event; this observer only keeps it from being reported twice.
      error: () => undefined,
    });
    ref.start();
    if (slot.phase === 'running') this.arm(index);
  }

  /** Starts the attempt's clock (what is left of it after a wait or a restore), if the task has a limit. */
  arm(index: number): void {
    const slot = this.#ctx.slots[index]!;
    const limit = this.#ctx.tasks[index]!.timeoutMs ?? this.#config.policy.timeoutMs;
    if (limit === null) return;
    const now = this.#runtime.clock.now();
    const ms = slot.deadline !== null ? Math.max(0, slot.deadline - now) : (slot.remainingMs ?? limit);
    slot.deadline = now + ms;
    slot.remainingMs = null;
    const event: JoinEvent = { type: 'join.timeout', index, attempt: slot.attempt };
    this.#scope.system.scheduler.schedule(this.#scope.self, this.#scope.self, event, ms, `timeout-${index}`);
  }

  /** Stops the attempt's clock; with `keep`, what is left of it is kept for later (a wait). */
  disarm(index: number, keep: boolean): void {
    const slot = this.#ctx.slots[index]!;
    if (slot.deadline === null) return;
    this.#scope.system.scheduler.cancel(this.#scope.self, `timeout-${index}`);
    if (keep) slot.remainingMs = Math.max(0, slot.deadline - this.#runtime.clock.now());
    slot.deadline = null;
  }

  #setPhase(index: number, phase: 'running' | 'waiting' | 'done'): void {
    const ctx = this.#ctx;
    const slot = ctx.slots[index]!;
    ctx[slot.phase === 'done' ? 'done' : slot.phase] -= 1;
    ctx[phase === 'done' ? 'done' : phase] += 1;
    slot.phase = phase;
  }

  /**
   * Forgets a task's actor (stopping it when `stop`) and its clock. With `giveUp`, a specialist on
   * the queue is cancelled too (a timeout or the failure policy ended its task); a join that is only
   * stopped (its run waits or moves elsewhere) leaves it running.
   */
  #release(index: number, stop: boolean, giveUp = false): void {
    const live = this.#snapshot.live;
    const ref = live.refs[index];
    const slot = this.#ctx.slots[index]!;
    if (slot.queued === true) {
      slot.queued = false;
      this.#ctx.queued -= 1;
    }
    if (ref !== undefined) {
      live.ids.delete(ref.id);
      live.refs[index] = undefined;
      if (stop) this.#scope.stopChild(ref);
    }
    if (giveUp && this.#ctx.remote) {
      // The run is the source of truth: cancelled there, its worker stops at its next checkpoint.
      void this.#runtime.specialistRuns?.cancel(this.#runIdOf(index)).catch(() => undefined);
    }
    this.disarm(index, false);
  }

  /** A task's specialist runs on the queue and has not ended yet. */
  queued(index: number): void {
    const slot = this.#ctx.slots[index]!;
    if (slot.queued === true) return;
    slot.queued = true;
    this.#ctx.queued += 1;
  }

  /** The task whose actor has this id, if it is still out. */
  indexOf(actorId: string | undefined): number | undefined {
    return actorId === undefined ? undefined : this.#snapshot.live.ids.get(actorId);
  }

  /** A specialist's run ended (output) or its actor failed (error). */
  ended(index: number, outcome: { output: GraphMachineOutput } | { error: unknown }): void {
    const slot = this.#ctx.slots[index]!;
    const task = this.#ctx.tasks[index]!;
    this.#release(index, false);
    if (!('output' in outcome)) {
      return this.settle(index, endedResult(task, index, this.#runIdOf(index), 'failed', `specialist failed: ${describeThrown(outcome.error)}`, serializeError(outcome.error), slot.attempt));
    }
    let result: TaskResult;
    try {
      result = resultOf(task, index, this.#config, outcome.output, slot.attempt);
    } catch (thrown) {
      return this.#needsHumanThrew(index, outcome.output, thrown);
    }
    this.settle(index, result);
  }

  /**
   * The coordinator's `needsHuman` threw on a task's final state: the user's check is broken, so
   * no result can be trusted. The task is recorded failed, the rest are cancelled and the dispatch
   * fails (`node_failed`, naming the coordinator, the task and what was thrown), whatever the
   * failure policy; no retry (the same state would throw again).
   */
  #needsHumanThrew(index: number, output: GraphMachineOutput, thrown: unknown): void {
    const ctx = this.#ctx;
    const task = ctx.tasks[index]!;
    const why = `needsHuman threw on ${taskLabel(task.kind, index)}'s final state: ${describeThrown(thrown)}`;
    const error: SerializedError = { name: 'WorkflowExecutionError', code: 'node_failed', message: `coordinator "${ctx.nodeId}": ${why}` };
    const result = resultOf(task, index, { exportState: this.#config.exportState, needsHuman: () => null }, output, ctx.slots[index]!.attempt);
    this.#record(index, { ...result, status: 'failed', reason: why, error });
    const cancelled = this.#cancelRest(`cancelled because the coordinator's needsHuman threw on ${taskLabel(task.kind, index)}`);
    if (ctx.failure !== null) return;
    const others = cancelled === 0 ? '' : `; ${cancelled} other task${cancelled === 1 ? '' : 's'} cancelled`;
    ctx.failure = { ...error, message: `${error.message}${others}; needsHuman must return a reason (a string) or null for any specialist state, without throwing` };
  }

  /** An attempt ran out of time: it is stopped and counts as a failure. */
  timedOut(index: number): void {
    const task = this.#ctx.tasks[index]!;
    const slot = this.#ctx.slots[index]!;
    const limit = task.timeoutMs ?? this.#config.policy.timeoutMs;
    this.#release(index, true, true);
    const reason = `timed out after ${String(limit)} ms (attempt ${slot.attempt})`;
    const error: SerializedError = { name: 'WorkflowExecutionError', code: 'task_timeout', message: `${taskLabel(task.kind, index)} ${reason}` };
    this.settle(index, endedResult(task, index, this.#runIdOf(index), 'failed', reason, error, slot.attempt));
  }

  /** Records a result, or retries a failed attempt while the task has retries left; then applies the policy. */
  settle(index: number, result: TaskResult): void {
    const ctx = this.#ctx;
    const slot = ctx.slots[index]!;
    const task = ctx.tasks[index]!;
    if (isFailure(result) && ctx.failure === null && slot.attempt <= (task.retries ?? this.#config.policy.retries)) {
      this.#emit({ type: 'specialist.retrying', index, kind: task.kind, specialistRunId: result.runId, attempt: slot.attempt + 1, reason: result.reason });
      if (slot.phase === 'waiting') this.#setPhase(index, 'running');
      slot.attempt += 1;
      slot.remainingMs = null;
      this.start(index);
      return;
    }
    this.#record(index, result);
    if (isFailure(result)) this.#applyPolicy(index, result);
    this.#checkMinCompleted();
  }

  #record(index: number, result: TaskResult): void {
    const ctx = this.#ctx;
    ctx.results[index] = result;
    this.#setPhase(index, 'done');
    if (result.status === 'completed') ctx.completed += 1;
    this.#emit({
      type: 'specialist.completed',
      index,
      kind: result.kind,
      specialistRunId: result.runId,
      status: result.status,
      needsHuman: result.needsHuman,
      attempts: result.attempts,
      reason: result.reason,
    });
  }

  #applyPolicy(index: number, result: TaskResult): void {
    const { onFailure } = this.#config.policy;
    if (onFailure === 'continue') return;
    const label = taskLabel(result.kind, index);
    const cancelled = this.#cancelRest(`cancelled because ${label} failed (onFailure: '${onFailure}')`);
    if (onFailure === 'fail' && this.#ctx.failure === null) {
      const others = cancelled === 0 ? '' : `; ${cancelled} other task${cancelled === 1 ? '' : 's'} cancelled`;
      this.#ctx.failure = {
        name: 'WorkflowExecutionError',
        code: 'specialist_failed',
        message: `coordinator "${this.#ctx.nodeId}": ${label} failed: ${result.reason ?? result.status}${others} (onFailure: 'fail')`,
      };
    }
  }

  /** Fails the dispatch as soon as `minCompleted` can no longer be reached. */
  #checkMinCompleted(): void {
    const ctx = this.#ctx;
    const min = this.#config.policy.minCompleted;
    if (ctx.failure !== null || ctx.completed + ctx.running + ctx.waiting >= min) return;
    // The problems that made the minimum unreachable, before the rest is cancelled.
    const problems = summarize(ctx.results.filter((r): r is TaskResult => r !== null)).problems;
    const cancelled = this.#cancelRest(`cancelled: ${min} completed tasks can no longer be reached`);
    const rest = cancelled === 0 ? '' : `; ${cancelled} other task${cancelled === 1 ? '' : 's'} cancelled`;
    ctx.failure = {
      name: 'WorkflowExecutionError',
      code: 'too_few_completed',
      message: `coordinator "${ctx.nodeId}" needs at least ${min} completed task${min === 1 ? '' : 's'} of ${ctx.tasks.length}; ${ctx.completed} completed (${problems.join('; ')})${rest}`,
    };
  }

  /** Cancels every task still running or waiting; returns how many. */
  #cancelRest(reason: string): number {
    const ctx = this.#ctx;
    let count = 0;
    for (let index = 0; index < ctx.slots.length && ctx.done < ctx.slots.length; index++) {
      if (ctx.slots[index]!.phase === 'done') continue;
      this.#release(index, true, true);
      this.#record(index, endedResult(ctx.tasks[index]!, index, this.#runIdOf(index), 'cancelled', reason, null, ctx.slots[index]!.attempt));
      count += 1;
    }
    ctx.asked = null;
    return count;
  }

  /** A specialist's wait began (or, for `null`, ended without a reply through the join). */
  waited(index: number, waiting: WaitingInfo | null): void {
    const slot = this.#ctx.slots[index]!;
    if (waiting !== null && slot.phase === 'running') {
      this.#setPhase(index, 'waiting');
      this.disarm(index, true);
      const task = this.#ctx.tasks[index]!;
      this.#emit({ type: 'specialist.waiting', index, kind: task.kind, specialistRunId: this.#runIdOf(index), waitsAt: waiting.nodeId, reason: waiting.reason });
    } else if (waiting === null && slot.phase === 'waiting') {
      this.#setPhase(index, 'running');
      if (this.#ctx.asked === index) this.#ctx.asked = null;
      this.arm(index);
    }
  }

  /**
   * Hands a reply to the specialist the parent waits for. A reply its human node refuses leaves it
   * waiting (it answers at once: its mailbox is idle while it waits), and the parent is asked again.
   */
  reply(event: { type: 'human.reply'; reply: unknown }): void {
    const ctx = this.#ctx;
    const index = ctx.asked ?? ctx.slots.findIndex((s) => s.phase === 'waiting');
    const ref = index < 0 ? undefined : this.#snapshot.live.refs[index];
    if (ref === undefined) return;
    ctx.asked = null;
    const before = (ref.getSnapshot() as { context: GraphMachineContext }).context.waiting;
    this.#setPhase(index, 'running');
    this.arm(index);
    ref.send(event);
    const after = ref.getSnapshot() as { status: string; context: GraphMachineContext };
    if (after.status === 'active' && after.context.waiting === before && before !== null) {
      this.#setPhase(index, 'waiting');
      this.disarm(index, true);
    }
  }

  /** Tells the parent it waits, once every specialist still out waits for a person. */
  askParent(): void {
    const ctx = this.#ctx;
    if (ctx.remote) {
      this.#park();
      return;
    }
    if (ctx.running > 0 || ctx.waiting === 0 || ctx.asked !== null || ctx.failure !== null) return;
    const index = ctx.slots.findIndex((s) => s.phase === 'waiting');
    const ref = this.#snapshot.live.refs[index];
    const waiting = (ref?.getSnapshot() as { context?: GraphMachineContext } | undefined)?.context?.waiting;
    if (ref === undefined || waiting === null || waiting === undefined) return;
    ctx.asked = index;
    const task = ctx.tasks[index]!;
    const label = taskLabel(task.kind, index);
    const path = `${ctx.trace.path}/${label}`;
    const event: CoordinatorWaitingEvent = {
      type: 'coordinator.waiting',
      waiting: {
        nodeId: ctx.nodeId,
        reason: `${label} (${path}) waits at ${waiting.nodeId}: ${waiting.reason}`,
        specialist: { index, kind: task.kind, runId: this.#runIdOf(index), path, nodeId: waiting.nodeId },
      },
    };
    this.#scope.self._parent!.send(event);
  }

  /**
   * Tells the parent it waits for its specialists on the queue, once every task still out runs
   * there and has not ended: the run is then stored waiting and continued (by a worker) when they
   * have. `wakeAt` is the first attempt deadline, when the run must look again even if they have not.
   */
  #park(): void {
    const ctx = this.#ctx;
    if (ctx.parked || ctx.failure !== null || ctx.running === 0 || ctx.queued < ctx.running) return;
    ctx.parked = true;
    const runs: QueuedSpecialist[] = [];
    let wakeAt: number | null = null;
    ctx.slots.forEach((slot, index) => {
      if (slot.phase === 'done') return;
      runs.push({ index, kind: ctx.tasks[index]!.kind, runId: this.#runIdOf(index) });
      if (slot.deadline !== null) wakeAt = Math.min(wakeAt ?? slot.deadline, slot.deadline);
    });
    const labels = runs.map((r) => taskLabel(r.kind, r.index)).join(', ');
    const event: CoordinatorWaitingEvent = {
      type: 'coordinator.waiting',
      waiting: { nodeId: ctx.nodeId, reason: `waits for ${runs.length} specialist run${runs.length === 1 ? '' : 's'} on the queue: ${labels}`, queued: { runs, wakeAt } },
    };
    this.#scope.self._parent!.send(event);
  }

  /**
   * Stops every specialist still out. The join being stopped (its run parks, is taken over or
   * stopped) keeps their stored runs on the queue for the next leg; with `giveUp` (the join failed,
   * and its run with it) those are cancelled too.
   */
  stopAll(giveUp = false): void {
    if (!giveUp) {
      this.#snapshot.live.refs.forEach((ref, index) => ref !== undefined && this.#release(index, true));
      return;
    }
    this.#ctx.slots.forEach((slot, index) => slot.phase !== 'done' && this.#release(index, true, true));
  }

  /** The next snapshot: done with the results once every task is. */
  next(): JoinSnapshot {
    const ctx = this.#ctx;
    if (ctx.done < ctx.tasks.length) return { ...this.#snapshot };
    const results = ctx.results as TaskResult[];
    return { ...this.#snapshot, status: 'done', output: { results, summary: summarize(results), failure: ctx.failure, startedAt: ctx.startedAt } } as JoinSnapshot;
  }
}
