import { serializeError } from '../errors/SwitchboardError.js';
import type { AgentResult, NodeFunction } from '../graph/AgentNode.js';
import { AgentContext } from './AgentContext.js';
import type { NodeRuntime } from './compileWorkflow.js';
import { contextFromState, executeStepNow, matchesError, writeBack, type StepDone } from './executeStep.js';
import { isThenable } from '../graph/catchThenable.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import { decide } from './decide.js';
import { gateNode } from './gateNode.js';
import { outputKeyOf } from './Steps.js';
import { WorkflowAbort, WorkflowTermination } from './WorkflowAbort.js';
import { DEFAULT_LOOP_FUSE, END_ROUTE, WORKFLOW_KEYS, loopKey, type EarlyEnd } from './workflowKeys.js';
import { runFanOut, type FanOutHeld } from './runFanOut.js';
import { RUN_CHILD, SubWorkflowWaiting, type HeldChild } from './runSubWorkflow.js';
import { childReplyKey, fanOutReplyKey, forkKey, heldChildKey } from './workflowKeys.js';
import { runtimeOfContext } from '../graph/RunRuntime.js';

/** A result that hands `value` on (and, for text, shows it as the output text). */
export function handOn(value: unknown, route?: string): AgentResult {
  const result: AgentResult = { handoff: value === undefined ? null : value };
  if (typeof value === 'string') result.outputText = value;
  if (route !== undefined) result.rawResponse = { route };
  return result;
}

/** The run's answer as text: a string as it is, another value as JSON (null when there is none). */
function answerText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? null;
  } catch {
    return null;
  }
}

/** The result of the node that ends a run: it hands `value` on and shows it as text (JSON for a structured value). */
export function finalResult(value: unknown): AgentResult {
  const result: AgentResult = { handoff: value === undefined ? null : value };
  const text = answerText(value);
  if (text !== null) result.outputText = text;
  return result;
}

/** The result of a node that ends the run at once (abort, terminate, spent fuse). */
export const early = (value: unknown, end: EarlyEnd['end'], message?: string): AgentResult => ({
  ...finalResult(value),
  rawResponse: message === undefined ? { route: END_ROUTE, end } : { route: END_ROUTE, end, message },
});

/**
 * The step node: runs the step, writes its context changes, and turns aborts and handled errors into
 * routes. A step that answers at once is settled at once (no promise: see `executeStepNow`).
 */
function stepNode(nodeId: string, rt: Extract<NodeRuntime, { type: 'step' }>): NodeFunction {
  // Only a sub-workflow needs the step's scope (its runtime, path and abort signal), and a model step
  // its signal (so a cancelled run stops its call), at once; any other step gets the node's signal
  // as `ctx.signal`, made only if the step reads it.
  const nested = typeof (rt.step as { [RUN_CHILD]?: unknown })[RUN_CHILD] === 'function' || rt.step.kind === 'agent';
  return (wctx, request) => {
    const before = contextFromState(wctx.state);
    const runtime = nested ? runtimeOfContext(wctx) : undefined;
    // A sub-workflow that waited continues from its held snapshot with the reply its parent's wait took.
    const held = before.get(heldChildKey(nodeId)) as HeldChild | undefined;
    const reply = before.get(childReplyKey(nodeId));
    const resume = held !== undefined && reply !== undefined ? { held, reply } : undefined;
    let done: StepDone | Promise<StepDone>;
    try {
      done = executeStepNow(rt.step, before, request.input, runtime === undefined ? undefined : { runtime, runId: wctx.runId, nodeId, signal: wctx.signal }, resume, wctx.nodeSignal);
      if (!(done instanceof Promise)) return stepWritten(nodeId, rt, wctx, before, done);
    } catch (error) {
      return stepFailed(nodeId, rt, wctx, request.input, error);
    }
    return done.then((settled) => {
      try {
        return stepWritten(nodeId, rt, wctx, before, settled);
      } catch (error) {
        return stepFailed(nodeId, rt, wctx, request.input, error);
      }
    }, (error: unknown) => stepFailed(nodeId, rt, wctx, request.input, error));
  };
}

/** A step's context changes written back (its output under its key when recorded), and its output handed on. */
function stepWritten(nodeId: string, rt: Extract<NodeRuntime, { type: 'step' }>, wctx: WorkflowContext, before: AgentContext, { output, context }: StepDone): AgentResult {
  const done = rt.record ? context.mutate().with(outputKeyOf(rt.step.name), output) : context.mutate();
  writeBack(wctx, before, done.without(heldChildKey(nodeId)).without(childReplyKey(nodeId)).build());
  return handOn(output);
}

/** A step that failed: a waiting sub-workflow is held, an abort or termination ends the run, a handled error routes to its handler; anything else is thrown. */
function stepFailed(nodeId: string, rt: Extract<NodeRuntime, { type: 'step' }>, wctx: WorkflowContext, input: unknown, error: unknown): AgentResult {
  if (error instanceof SubWorkflowWaiting && rt.waits !== undefined) {
    wctx.put(heldChildKey(nodeId), error.held);
    wctx.state.delete(childReplyKey(nodeId));
    return handOn(input, 'WAIT');
  }
  if (error instanceof WorkflowAbort) return early(error.result, 'aborted');
  if (error instanceof WorkflowTermination) return early(error.message, error.status, error.message);
  const index = error instanceof SubWorkflowWaiting ? -1 : rt.handlers.findIndex((h) => matchesError(h.match, error));
  if (index < 0) throw error;
  wctx.put(WORKFLOW_KEYS.error, { step: rt.step.name, ...serializeError(error) });
  return handOn(input, String(index));
}

/**
 * The fan-out node: runs the items (see {@link runFanOut}) and writes their context changes. When
 * items wait for a person it holds them in the run's state and routes to its wait (`WAIT`); the
 * reply brings the run back here, and the first waiting item continues with it.
 */
function fanOutNode(nodeId: string, rt: Extract<NodeRuntime, { type: 'fan-out' }>): NodeFunction {
  return async (wctx, request) => {
    const before = contextFromState(wctx.state);
    const runtime = runtimeOfContext(wctx);
    const held = before.get(forkKey(nodeId)) as FanOutHeld | undefined;
    const reply = before.get(fanOutReplyKey(nodeId));
    // Held without a reply (never so after the wait node): nothing to continue, the run waits again.
    if (held !== undefined && reply === undefined) return handOn(request.input, 'WAIT');
    const run = runtime === undefined ? null : { runtime, runId: wctx.runId, step: wctx.step, signal: wctx.signal };
    const done = await runFanOut(rt, before, request.input, run, held === undefined ? undefined : { held, reply });
    for (const [key, value] of Object.entries(done.changes)) wctx.put(key, value);
    wctx.state.delete(fanOutReplyKey(nodeId));
    if (done.waiting !== null) {
      wctx.put(forkKey(nodeId), done.waiting);
      return handOn(request.input, 'WAIT');
    }
    wctx.state.delete(forkKey(nodeId));
    return done.end === null ? handOn(done.outputs) : early(done.end.value, done.end.end, done.end.message);
  };
}

/** Starts a loop: its pass count (and `ITERATION_COUNT`) at 0, or at 1 for a do-while whose body runs now. */
function loopEntry(rt: Extract<NodeRuntime, { type: 'loop-entry' }>): NodeFunction {
  return (wctx, request) => {
    const first = rt.mode === 'do' ? 1 : 0;
    wctx.put(loopKey(rt.loop), first);
    wctx.put(AgentContext.ITERATION_COUNT.name, first);
    if (first === 1) {
      const passes = countPass(wctx.get(WORKFLOW_KEYS.loopPasses));
      if (passes > maxIterations(wctx.get(WORKFLOW_KEYS.maxIterations))) return early(request.input, 'max-steps');
      wctx.put(WORKFLOW_KEYS.loopPasses, passes);
    }
    return handOn(request.input);
  };
}

const countPass = (value: unknown): number => (typeof value === 'number' ? value : 0) + 1;
const maxIterations = (value: unknown): number => (typeof value === 'number' ? value : DEFAULT_LOOP_FUSE);

/**
 * Checks a loop's predicate: exit when it holds; else count a pass (the fuse first) and go round. A
 * predicate that answers at once is not awaited. A `times(n)` loop exits after its own n passes
 * (an inner loop's `ITERATION_COUNT` does not confuse it) and leaves the fuse alone.
 */
function loopCheck(rt: Extract<NodeRuntime, { type: 'loop-check' }>): NodeFunction {
  return (wctx, request) => {
    const ctx = contextFromState(wctx.state);
    if (rt.times !== undefined) return loopChecked(rt, wctx, ctx, request.input, ((ctx.get(loopKey(rt.loop)) as number | undefined) ?? 0) >= rt.times);
    const holds = rt.predicate(ctx, request.input);
    if (isThenable(holds)) return Promise.resolve(holds).then((settled) => loopChecked(rt, wctx, ctx, request.input, settled));
    return loopChecked(rt, wctx, ctx, request.input, holds);
  };
}

function loopChecked(rt: Extract<NodeRuntime, { type: 'loop-check' }>, wctx: WorkflowContext, ctx: AgentContext, input: unknown, holds: unknown): AgentResult {
  if (holds) return handOn(input, 'loop-exit');
  if (rt.times === undefined) {
    const passes = countPass(wctx.get(WORKFLOW_KEYS.loopPasses));
    if (passes > maxIterations(wctx.get(WORKFLOW_KEYS.maxIterations))) return early(input, 'max-steps');
    wctx.put(WORKFLOW_KEYS.loopPasses, passes);
  }
  const count = (ctx.get(loopKey(rt.loop)) as number | undefined ?? 0) + 1;
  wctx.put(loopKey(rt.loop), count);
  wctx.put(AgentContext.ITERATION_COUNT.name, count);
  return handOn(input, rt.mode === 'while' ? 'loop-continue' : 'back-edge');
}

/** The graph node function for a node's runtime (fork nodes compile themselves; see forkNode). */
export function workflowNode(nodeId: string, rt: NodeRuntime): NodeFunction {
  switch (rt.type) {
    case 'step':
      return stepNode(nodeId, rt);
    case 'gateway':
      return async (wctx, request) => handOn(request.input, String(Boolean(await rt.predicate(contextFromState(wctx.state), request.input))));
    case 'loop-entry':
      return loopEntry(rt);
    case 'loop-check':
      return loopCheck(rt);
    case 'decision':
      return async (wctx, request) => handOn(request.input, await decide(rt, contextFromState(wctx.state), request.input, wctx.signal));
    case 'fan-out':
      return fanOutNode(nodeId, rt);
    case 'gate':
      return gateNode(nodeId, rt);
    case 'loop-exit':
    case 'join':
    case 'fork':
    case 'person':
    case 'sub-wait':
    case 'fan-wait':
      return (_wctx, request) => handOn(request.input);
  }
}
