import type { InspectionEvent, Observer } from 'xstate';
import type { AgentRequest } from './AgentNode.js';
import type { TraceRecorder } from '../trace/TraceRecorder.js';
import type { WorkflowEvent } from './WorkflowEvent.js';
import type { DurableOptions } from './durable/DurableOptions.js';
import type { BudgetOptions } from '../budget/Budget.js';
import type { StepRunner } from '../steps/StepRunner.js';
import type { Breakpoints } from './Breakpoints.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { catchThenable } from './catchThenable.js';
import { describeValue } from './describeValue.js';

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
  /**
   * The run's budgets: `maxCost` (USD), `maxTokens`, `maxIterations` (steps), `maxDuration` (ms)
   * and the `prices` to cost model calls with. Checked before every step and every model call; a
   * spent one ends the run `budget-exceeded` (or sends it to the graph's `onBudgetExceeded` node).
   * Kept with a stored run, so a resumed run goes on from what it had spent.
   */
  budget?: BudgetOptions;
  /**
   * How each leaf step (node) executes: `localStepRunner()` (in process; the same as none) or
   * `checkpointingStepRunner(store)` (each step recorded; a run started again with the same `runId`
   * reuses the steps that completed).
   */
  stepRunner?: StepRunner;
  /**
   * Pause a stored run before or after named nodes: it waits (`waiting`, the reason naming the
   * breakpoint) and goes on when resumed without a reply. A name that is not a node of the graph,
   * or breakpoints on a run without a store, fail at the start (`invalid_breakpoint`).
   */
  breakpoints?: Breakpoints;
}

/** What XState's `createActor` accepts as `inspect`: an observer or a function of inspection events. */
export type InspectObserver = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/**
 * The `inspect` actor option, or nothing (so the actor is created exactly as without it). The
 * observer is guarded: the first time it throws or rejects, `onFail` is told and it is called no
 * more, so a broken inspector never stops the run.
 */
export function inspectOption(inspect: InspectObserver | undefined, onFail: (thrown: unknown) => void): { inspect?: (event: InspectionEvent) => void } {
  if (inspect === undefined) return {};
  let failed = false;
  const fail = (thrown: unknown): void => {
    if (failed) return;
    failed = true;
    onFail(thrown);
  };
  return {
    inspect: (event) => {
      if (failed) return;
      try {
        catchThenable(typeof inspect === 'function' ? inspect(event) : inspect.next?.(event), fail);
      } catch (error) {
        fail(error);
      }
    },
  };
}

/** The default clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Turns `run()`'s input into a request: a string becomes `{ input: string }`. */
export function toRequest(input: string | AgentRequest): AgentRequest {
  if (typeof input === 'string') return { input };
  if (input === null || typeof input !== 'object' || Array.isArray(input) || !('input' in input)) {
    throw new GraphDefinitionError(
      `run input must be a string or an AgentRequest { input, metadata? }; received ${describeValue(input)}`,
    );
  }
  const metadata = (input as { metadata?: unknown }).metadata;
  if (metadata !== undefined) {
    const proto = metadata !== null && typeof metadata === 'object' ? (Object.getPrototypeOf(metadata) as unknown) : undefined;
    if (proto !== Object.prototype && proto !== null) {
      throw new GraphDefinitionError(`run input metadata must be a plain object of JSON values, or absent; received ${describeValue(metadata)}`);
    }
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

