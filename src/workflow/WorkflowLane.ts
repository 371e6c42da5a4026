import { serializeError } from '../errors/SwitchboardError.js';
import type { AgentResult } from '../graph/AgentNode.js';
import type { RunRuntime } from '../graph/RunRuntime.js';
import { newSpanId, type TraceContext } from '../trace/TraceContext.js';

/**
 * Where a step that a node runs itself (a fork's branch, a fan-out's item, a sub-workflow) reports:
 * the runtime whose trace path its events carry (its span the step's), and the step's node id.
 */
export interface StepScope {
  runtime: RunRuntime;
  runId: string;
  nodeId: string;
  /** The step's abort signal (the run's cancel or its spent duration budget): a sub-workflow it runs is cancelled with it. */
  signal?: AbortSignal;
}

/**
 * The trace a sub-workflow run by the step of `scope` runs under: the same trace, a span of its own
 * under the step's, and the path `<path>/<node id>` (nesting has no limit: `root/review/lint`).
 */
export function subWorkflowTrace(scope: StepScope): TraceContext {
  const { runtime } = scope;
  const trace = runtime.trace;
  return { traceId: trace.traceId, spanId: newSpanId(), parentSpanId: runtime.nodeSpanId ?? trace.spanId, path: `${trace.path}/${scope.nodeId}` };
}

/**
 * A lane of a run's trace for the steps one node runs concurrently (a fork's branch, a fan-out's
 * item): its events carry the path `<run path>/<label>` (`root/spell[1]`) and belong to spans under
 * the node's. Each step in it reports `node.started`, then `node.completed` (its output and context
 * writes) or `node.failed`, with the node's step number, exactly as a node of the graph does.
 */
export class WorkflowLane {
  readonly #runtime: RunRuntime;
  readonly #runId: string;
  readonly #step: number;
  readonly #signal: AbortSignal | undefined;
  #started = 0;

  /** `signal`: the node's abort signal, which each step of the lane gets (see {@link StepScope}). */
  constructor(parent: RunRuntime, runId: string, label: string, step: number, signal?: AbortSignal) {
    this.#runtime = parent.child();
    const trace = parent.trace;
    this.#runtime.trace = { traceId: trace.traceId, spanId: parent.nodeSpanId ?? trace.spanId, parentSpanId: trace.spanId, path: `${trace.path}/${label}` };
    this.#runId = runId;
    this.#step = step;
    this.#signal = signal;
  }

  /** The scope a step of this lane runs in (for the sub-workflow it may be). */
  scope(nodeId: string): StepScope {
    return this.#signal === undefined ? { runtime: this.#runtime, runId: this.#runId, nodeId } : { runtime: this.#runtime, runId: this.#runId, nodeId, signal: this.#signal };
  }

  started(nodeId: string, input: unknown): void {
    const runtime = this.#runtime;
    runtime.nodeSpanId = newSpanId();
    const started = (this.#started = runtime.clock.now());
    // The reading that starts the step's duration is the time of its node.started too.
    if (runtime.listening) runtime.emit(this.#runId, { type: 'node.started', nodeId, step: this.#step, request: { input: input === undefined ? null : input } }, started);
  }

  completed(nodeId: string, output: unknown, writes: Record<string, unknown>): void {
    const runtime = this.#runtime;
    if (!runtime.listening) return;
    const result: AgentResult = { handoff: output === undefined ? null : output };
    if (typeof output === 'string') result.outputText = output;
    const delta = Object.keys(writes).length === 0 ? null : { set: writes, deleted: [] };
    const ended = runtime.clock.now();
    runtime.emit(this.#runId, { type: 'node.completed', nodeId, step: this.#step, result, durationMs: ended - this.#started, delta }, ended);
  }

  failed(nodeId: string, error: unknown): void {
    const runtime = this.#runtime;
    if (runtime.listening) runtime.emit(this.#runId, { type: 'node.failed', nodeId, step: this.#step, error: serializeError(error) });
  }
}
