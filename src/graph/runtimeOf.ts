import type { AnyActorRef } from 'xstate';
import type { TraceContext } from '../trace/TraceContext.js';
import { stateModelOf } from './machineSpecs.js';
import { RunRuntime } from './RunRuntime.js';

/** The runtime of each graph actor (its run's session, events, clock), set when the actor is made. */
const runtimes = new WeakMap<AnyActorRef, RunRuntime>();

let pending: RunRuntime | null = null;

/**
 * Creates a graph actor with its runtime attached from the very first transition: the initial
 * state's entry actions run inside `createActor`, before the caller could attach anything.
 */
export function createWithRuntime<T extends AnyActorRef>(runtime: RunRuntime, create: () => T): T {
  pending = runtime;
  try {
    const actor = create();
    runtimes.set(actor, runtime);
    return actor;
  } finally {
    pending = null;
  }
}

/**
 * The runtime of the nearest graph actor above `actor`: its parent's, or, for a specialist started
 * by a coordinator's join actor, the coordinator run's.
 */
function ancestorRuntime(actor: AnyActorRef): RunRuntime | undefined {
  for (let parent = actor._parent; parent !== undefined; parent = parent._parent) {
    const runtime = runtimes.get(parent);
    if (runtime !== undefined) return runtime;
  }
  return undefined;
}

/**
 * Called by the machine's context factory: adopts the runtime handed over by
 * {@link createWithRuntime}, or, for a machine invoked by another graph (a specialist), a runtime
 * that reports through its parent's.
 */
export function adoptPendingRuntime(self: AnyActorRef, trace: TraceContext): void {
  const parent = ancestorRuntime(self);
  // A machine created directly with createActor gets a quiet runtime of its own.
  const runtime = pending ?? (parent === undefined ? new RunRuntime() : parent.child());
  runtime.trace = trace;
  runtimes.set(self, runtime);
}

/**
 * The runtime of a machine actor. A specialist restored with its parent gets one reporting through
 * the parent's; an actor created directly with `createActor` gets a quiet default.
 */
export function runtimeOf(actor: AnyActorRef): RunRuntime {
  let runtime = runtimes.get(actor);
  if (runtime === undefined) {
    const parent = ancestorRuntime(actor);
    runtime = parent === undefined ? new RunRuntime() : parent.child();
    try {
      const trace = (actor.getSnapshot() as { context?: { trace?: TraceContext } } | undefined)?.context?.trace;
      if (trace !== undefined) runtime.trace = trace;
    } catch {
      // The actor is still initializing; its context factory sets the trace.
    }
    runtimes.set(actor, runtime);
  }
  runtime.stateModel ??= stateModelOf(actor as { logic?: unknown });
  return runtime;
}
