import { createActor, type AnyActorLogic, type AnyActorRef } from 'xstate';
import { directMachine, specOf, type GraphMachine } from '../graph/compileMachine.js';
import { withDirectNode } from '../graph/durable/persistedSnapshot.js';
import { newSpanId } from '../trace/TraceContext.js';
import { specialistRunId, type SpecialistTask } from '../graph/SpecialistRuns.js';
import type { JoinContext } from './JoinState.js';
import { taskLabel } from './taskResults.js';

/** The run id of a task's specialist: one stored run per attempt on the queue, else a path under the parent run. */
export function specialistRunIdOf(ctx: JoinContext, index: number): string {
  if (ctx.remote) return specialistRunId(ctx.parentRunId, ctx.step, index, ctx.slots[index]!.attempt);
  return `${ctx.parentRunId}/${taskLabel(ctx.tasks[index]!.kind, index)}`;
}

/** The actor id of a task's specialist under the join (a retry's attempt as a suffix). */
function childIdOf(ctx: JoinContext, index: number): string {
  const attempt = ctx.slots[index]!.attempt;
  return `${ctx.nodeId}/${taskLabel(ctx.tasks[index]!.kind, index)}${attempt > 1 ? `~${attempt}` : ''}`;
}

/** What creating a specialist actor needs from the join. */
export interface SpecialistActorSource {
  ctx: JoinContext;
  machines: Readonly<Record<string, AnyActorLogic>>;
  /** The child of a task whose specialist runs on the queue. */
  remote: AnyActorLogic;
  parent: AnyActorRef;
  /** True when the run is held in memory from its start (its nodes run directly). */
  direct: boolean;
}

/**
 * Creates (not starts) the specialist actor of a task, from its persisted snapshot when restoring.
 * Returns the actor and its id.
 */
export function createSpecialistActor(
  source: SpecialistActorSource,
  index: number,
  persisted?: { id: string; snapshot: unknown },
): { id: string; ref: AnyActorRef } {
  const { ctx, parent } = source;
  const task = ctx.tasks[index]!;
  const id = persisted?.id ?? childIdOf(ctx, index);
  const label = taskLabel(task.kind, index);
  const fresh = () => ({
    runId: specialistRunIdOf(ctx, index),
    // Each specialist gets its own copy of the shared keys (none shared: a fresh empty state).
    state: ctx.shared === '{}' ? {} : (JSON.parse(ctx.shared) as Record<string, unknown>),
    trace: { traceId: ctx.trace.traceId, spanId: newSpanId(), parentSpanId: ctx.trace.parentSpanId, path: `${ctx.trace.path}/${label}` },
  });
  if (ctx.remote) {
    if (persisted !== undefined) return { id, ref: createActor(source.remote, { id, parent, snapshot: persisted.snapshot as never }) };
    const input: SpecialistTask = {
      ...fresh(),
      parentRunId: ctx.parentRunId,
      nodeId: ctx.nodeId,
      index,
      attempt: ctx.slots[index]!.attempt,
      kind: task.kind,
      input: task.input,
    };
    return { id, ref: createActor(source.remote, { id, parent, input }) };
  }
  const machine = source.machines[task.kind]!;
  if (persisted !== undefined) {
    // A specialist persisted by a direct machine has no child entry for its node in flight: put it back so restoring runs the node again.
    return { id, ref: createActor(machine, { id, parent, snapshot: withDirectNode(machine as GraphMachine, persisted.snapshot) as never }) };
  }
  // A run held in memory from its start runs its specialists' nodes directly; a stored one keeps
  // the invoking machines, whose persisted snapshots re-run a node in flight on restore.
  const logic = source.direct ? directMachine(specOf(machine)) : machine;
  return { id, ref: createActor(logic, { id, parent, input: { request: { input: task.input }, ...fresh() } }) };
}
