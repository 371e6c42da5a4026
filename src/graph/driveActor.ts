import type { Actor } from 'xstate';
import type { GraphMachine } from './compileMachine.js';
import type { GraphMachineContext, GraphMachineOutput, WaitingInfo } from './GraphMachineContext.js';
import { readPath } from './PathLog.js';
import type { MachineIo } from './GraphSpec.js';
import { findSpec } from './machineSpecs.js';
import { SwitchboardError, describeThrown } from '../errors/SwitchboardError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import { BudgetMeter, holdMeterScope } from '../budget/BudgetMeter.js';
import { runtimeOf } from './runtimeOf.js';

/** Options for {@link driveActor}. */
export interface DriveOptions {
  /** Aborting sends the cancel event. */
  signal?: AbortSignal;
  /** Called with every new snapshot (after each macrostep), before the run settles. */
  onSnapshot?: (actor: Actor<GraphMachine>) => void;
  /**
   * A restored run that waited: ignore the wait it was restored in (the reply is sent after start).
   * A later wait, even at the same step (a coordinator's specialist that waits again), settles.
   */
  ignoreRestoredWait?: boolean;
  /** Called when the run waits, before the actor stops (take its persisted snapshot here). */
  onWaiting?: (actor: Actor<GraphMachine>) => void;
  /** Receives the function that pauses the run at a breakpoint: it settles as waiting there and the actor stops. */
  pauseHandle?: (pause: (waiting: WaitingInfo) => void) => void;
}

/**
 * The JSON output of a run that stopped at a human node; its path in the vocabulary of the machine's
 * front end (`io.path`: a typed workflow's step names), as its output at the end has it.
 */
export function waitingOutput(context: GraphMachineContext, io?: MachineIo): GraphMachineOutput {
  const ids = readPath(context.path);
  return {
    runId: context.runId,
    status: 'waiting',
    result: context.result,
    outputText: context.result?.outputText ?? null,
    path: io?.path === undefined ? ids : io.path(ids),
    steps: context.steps,
    state: context.state,
    error: null,
    waiting: context.waiting,
    budget: context.budget,
  };
}

/**
 * Follows one actor for {@link driveActor}: its observer and its abort listener. A class, so a
 * run pays for one object instead of a closure per callback.
 */
class ActorDriver {
  #settled = false;
  readonly #actor: Actor<GraphMachine>;
  readonly #options: DriveOptions;
  readonly #resolve: (output: GraphMachineOutput) => void;
  readonly #reject: (error: unknown) => void;
  /** Each wait is a new `waiting` object in the context; the restored one is recognized by identity. */
  readonly #restoredWait: GraphMachineContext['waiting'];
  #subscription: { unsubscribe(): void } | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #releaseScope: (() => void) | null = null;

  constructor(actor: Actor<GraphMachine>, options: DriveOptions, resolve: (output: GraphMachineOutput) => void, reject: (error: unknown) => void) {
    this.#actor = actor;
    this.#options = options;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#restoredWait = options.ignoreRestoredWait === true ? actor.getSnapshot().context.waiting : null;
  }

  /** Settles the run as waiting at a breakpoint (the node about to run stays in flight) and stops the actor. */
  pause(waiting: WaitingInfo): void {
    if (!this.#settle()) return;
    const context = { ...this.#actor.getSnapshot().context, status: 'waiting' as const, waiting };
    this.#actor.stop();
    this.#resolve(waitingOutput(context, findSpec(this.#actor.logic)?.io));
  }

  start(): void {
    this.#options.pauseHandle?.((waiting) => this.pause(waiting));
    const signal = this.#options.signal;
    this.#subscription = this.#actor.subscribe(this);
    signal?.addEventListener('abort', this, { once: true });
    const meter = this.#startMeter();
    // The steps of the leg follow from its start: started in the meter's scope, they find it current.
    if (meter === null) this.#actor.start();
    else meter.scope(() => this.#actor.start());
    if (signal?.aborted) this.handleEvent();
  }

  /** The abort listener: cancels the run. */
  handleEvent(): void {
    this.#actor.send({ type: 'workflow.cancel' });
  }

  next(snapshot: ReturnType<Actor<GraphMachine>['getSnapshot']>): void {
    if (this.#settled) return;
    this.#options.onSnapshot?.(this.#actor);
    const context = snapshot.context;
    const waitingHere = context.status === 'waiting' && snapshot.status === 'active';
    if (waitingHere && (this.#restoredWait === null || context.waiting !== this.#restoredWait)) {
      this.#settle();
      this.#options.onWaiting?.(this.#actor);
      this.#actor.stop();
      this.#resolve(waitingOutput(context, findSpec(this.#actor.logic)?.io));
    }
  }

  complete(): void {
    if (this.#settle()) this.#resolve(this.#actor.getSnapshot().output!);
  }

  error(error: unknown): void {
    if (!this.#settle()) return;
    this.#reject(
      error instanceof SwitchboardError ? error : new WorkflowExecutionError(`run stopped on an internal error: ${describeThrown(error)}`, { code: 'internal', cause: error }),
    );
  }

  /**
   * A run with a budget gets its leg's meter (from what the snapshot says was spent) before any node
   * starts; with a duration budget, a timer that stops the run, node in flight included, when it runs out.
   */
  #startMeter(): BudgetMeter | null {
    const budget = this.#actor.getSnapshot().context.budget;
    if (budget === null) return null;
    const runtime = runtimeOf(this.#actor);
    const meter = new BudgetMeter(budget, runtime.clock);
    runtime.meter = meter;
    this.#releaseScope = holdMeterScope();
    const limit = budget.limits.maxDuration;
    if (limit === undefined || budget.exceeded !== null) return meter;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      // A run already stopped for another budget (now in its onBudgetExceeded node) is left alone.
      if (meter.exceeded !== null) return;
      meter.expire();
      this.#actor.send({ type: 'workflow.budget' });
    }, Math.max(0, limit - budget.elapsedMs));
    return meter;
  }

  /** Marks the run settled (false if it already was) and lets go of the actor and the signal. */
  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#releaseScope?.();
    this.#options.signal?.removeEventListener('abort', this);
    this.#subscription?.unsubscribe();
    return true;
  }
}

/**
 * Starts and follows a graph actor until it reaches a final state or waits at a human
 * node; resolves with the machine's output (status `waiting` for the latter, the actor then stopped).
 */
export function driveActor(actor: Actor<GraphMachine>, options: DriveOptions = {}): Promise<GraphMachineOutput> {
  return new Promise<GraphMachineOutput>((resolve, reject) => new ActorDriver(actor, options, resolve, reject).start());
}
