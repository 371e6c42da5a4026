import type { AnyActorRef, Snapshot } from 'xstate';
import type { SerializedError } from '../errors/SwitchboardError.js';
import type { WaitingInfo } from '../graph/GraphMachineContext.js';
import type { CoordinatorTask, DispatchSummary, TaskResult } from './CoordinatorTask.js';

/** What the dispatch state hands its join actor. */
export interface JoinInput {
  nodeId: string;
  parentRunId: string;
  tasks: CoordinatorTask[];
  /** The parent's whitelisted state keys as JSON text: each specialist parses its own copy. */
  shared: string;
  /** The trace the specialists join: the dispatch node's span is their parent. */
  trace: { traceId: string; parentSpanId: string | null; path: string };
  /** Epoch ms (the run's clock) when the dispatch began. */
  startedAt: number;
  /** The run's step count at the dispatch: with the task number, it names a specialist run on the queue. */
  step: number;
  /** True when the specialists run as stored runs of their own on the run queue (see `SpecialistRuns`). */
  remote: boolean;
}

/** Where one task stands. Plain JSON: it is persisted with the run. */
export interface TaskSlot {
  phase: 'running' | 'waiting' | 'done';
  /** 1 for the first run of the task, 2 for its first retry… */
  attempt: number;
  /** When the running attempt times out (epoch ms, the run's clock), or null. */
  deadline: number | null;
  /** While waiting for a person: the attempt's time left, resumed when it runs again. */
  remainingMs: number | null;
  /** Set while the task's specialist runs on the queue and has not ended (a remote dispatch). */
  queued?: boolean;
}

/**
 * The join's own state (persisted with the run). Slots and results are written in place, one
 * entry per event, so a completion costs O(1) whatever the number of tasks; the persisted form
 * is a copy.
 */
export interface JoinContext extends JoinInput {
  slots: TaskSlot[];
  results: Array<TaskResult | null>;
  running: number;
  waiting: number;
  done: number;
  completed: number;
  /** The task the parent was told it waits for (null while it was not told). */
  asked: number | null;
  /** Set when the failure policy failed the dispatch. */
  failure: SerializedError | null;
  /** Tasks whose specialist runs on the queue and has not ended (a remote dispatch). */
  queued: number;
  /** True once the parent was told, in this leg, that it waits for its specialists on the queue. */
  parked: boolean;
}

/** What the join resolves to. */
export interface JoinOutput {
  results: TaskResult[];
  summary: DispatchSummary;
  failure: SerializedError | null;
  startedAt: number;
}

/** The live half of the join: the specialist actors and their ids (never persisted). */
export interface JoinLive {
  refs: Array<AnyActorRef | undefined>;
  ids: Map<string, number>;
}

/** The join's snapshot. */
export type JoinSnapshot = Snapshot<JoinOutput> & { context: JoinContext; live: JoinLive };

/** The join's persisted form: its context and the persisted snapshots of the specialists not done. */
export interface PersistedJoin {
  status: JoinSnapshot['status'];
  output?: JoinOutput;
  context: JoinContext;
  children: Record<string, { id: string; snapshot: unknown }>;
}

/** What the join tells its parent when every specialist still out waits for a person. */
export interface CoordinatorWaitingEvent {
  type: 'coordinator.waiting';
  waiting: Omit<WaitingInfo, 'since'>;
}

/** Events the join handles besides XState's own (done, error, stop). */
export type JoinEvent =
  | { type: 'join.waiting'; index: number; attempt: number; waiting: WaitingInfo }
  | { type: 'join.running'; index: number; attempt: number }
  | { type: 'join.timeout'; index: number; attempt: number }
  | { type: 'join.queued'; index: number; attempt: number }
  | { type: 'human.reply'; reply: unknown }
  | { type: string; output?: unknown; error?: unknown; actorId?: string };
