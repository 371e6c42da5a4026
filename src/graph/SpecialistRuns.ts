import type { GraphMachine } from './compileMachine.js';
import type { GraphMachineOutput } from './GraphMachineContext.js';
import type { TraceContext } from '../trace/TraceContext.js';

/** One task of a coordinator's dispatch, run as a stored specialist run of its own (a child job). */
export interface SpecialistTask {
  /** The specialist run's id: `<parent run>:<dispatch step>:<task number>` (`.<attempt>` after a retry). */
  runId: string;
  parentRunId: string;
  /** The coordinator's dispatch node. */
  nodeId: string;
  /** The task's 0-based index in the dispatch. */
  index: number;
  /** 1 for the first attempt, 2 for the first retry… */
  attempt: number;
  kind: string;
  input: string;
  /** The specialist's initial state (the parent's shared keys). */
  state: Record<string, unknown>;
  /** The specialist's place in the parent's trace. */
  trace: TraceContext;
}

/** How a specialist run stands: ended (with its output, as the in-process child would give it) or not yet. */
export type SpecialistOutcome =
  | { ended: true; output: GraphMachineOutput }
  | { ended: false; status: string; waitReason: string | null };

/**
 * Where a coordinator's specialists run when they do not run in its process: each task is a stored
 * run of its specialist graph that any worker can advance (`RunWorker` gives one to the runs it
 * advances). The coordinator's run waits while any is out and is continued once all have ended.
 */
export interface SpecialistRuns {
  /**
   * Creates the task's specialist run unless it exists (so calling it again after a crash is
   * harmless), then reports how it stands.
   */
  settle(task: SpecialistTask, machine: GraphMachine): Promise<SpecialistOutcome>;
  /** Cancels a specialist run the failure policy or a timeout gave up on (a finished or missing run is left alone). */
  cancel(runId: string): Promise<void>;
}

/** The id of a task's specialist run: three `:`-separated parts, as BullMQ accepts for a job id. */
export function specialistRunId(parentRunId: string, step: number, index: number, attempt: number): string {
  return `${parentRunId}:${step}:${index + 1}${attempt > 1 ? `.${attempt}` : ''}`;
}

/**
 * The coordinator run a specialist run's id names (`<parent run>:<step>:<task number>`, see
 * {@link specialistRunId}), or null for an id of another form.
 */
export function specialistParentOf(runId: string): string | null {
  return /^([^:]+):\d+:\d+(?:\.\d+)?$/.exec(runId)?.[1] ?? null;
}
