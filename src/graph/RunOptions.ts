import type { InspectionEvent, Observer } from 'xstate';
import type { AgentRequest } from './AgentNode.js';
import type { TraceRecorder } from '../trace/TraceRecorder.js';
import type { WorkflowEvent } from './WorkflowEvent.js';
import type { DurableOptions } from './durable/DurableOptions.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';

/** A source of time, injectable so tests never wait on the real clock. */
export interface Clock {
  now(): number;
}

/** Options for `run()` and `stream()`. With a `store`, the run is checkpointed after every node. */
export interface RunOptions extends DurableOptions {
  /** Used as given; a UUID is generated otherwise. */
  runId?: string;
  /** Aborting it cancels the run: the node in flight sees `ctx.signal` abort, the run ends `cancelled`. */
  signal?: AbortSignal;
  /** Exposed to nodes as `ctx.session`. */
  session?: unknown;
  /** Overrides the graph's fuse for this run (a positive integer). */
  maxSteps?: number;
  /** Seeds the shared state. */
  state?: Record<string, unknown>;
  /** Receives every event of the run, in order, as is (in process; not redacted). */
  onEvent?: (event: WorkflowEvent) => void;
  /**
   * Receive every event of the run, redacted once for all of them (API keys, `Authorization`
   * values, image bytes and `__` keys removed): `MemoryRecorder`, `JsonlRecorder`,
   * `OpenTelemetryRecorder` or your own `TraceRecorder`.
   */
  recorders?: readonly TraceRecorder[];
  /**
   * XState's inspection observer, passed to `createActor` (for example `inspector.inspect` from
   * `@statelyai/inspect`). It sees the graph actor, its node actors, every event and snapshot.
   * Inspection events carry raw context; sanitize them if they leave the process.
   */
  inspect?: InspectObserver;
  /** Time source for `at` and `durationMs` (default: `Date.now`). */
  clock?: Clock;
}

/** What XState's `createActor` accepts as `inspect`: an observer or a function of inspection events. */
export type InspectObserver = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/** The `inspect` actor option, or nothing (so the actor is created exactly as without it). */
export function inspectOption(inspect: InspectObserver | undefined): { inspect?: InspectObserver } {
  return inspect === undefined ? {} : { inspect };
}

/** The default clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Turns `run()`'s input into a request: a string becomes `{ input: string }`. */
export function toRequest(input: string | AgentRequest): AgentRequest {
  if (typeof input === 'string') return { input };
  if (input === null || typeof input !== 'object' || !('input' in input)) {
    throw new GraphDefinitionError(
      `run input must be a string or an AgentRequest { input, metadata? }; received ${describeValue(input)}`,
    );
  }
  return input;
}

/** Throws GraphDefinitionError unless `value` is a positive integer. */
export function checkMaxSteps(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new GraphDefinitionError(
      `${where}: maxSteps must be a positive integer (the most node executions a run may make); received ${describeValue(value)}`,
    );
  }
  return value;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}
