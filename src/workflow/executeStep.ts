import type { ZodType } from 'zod';
import { formatZodError } from '../errors/formatZodError.js';
import { SwitchboardError } from '../errors/SwitchboardError.js';
import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import { isThenable } from '../graph/catchThenable.js';
import { findNotJson } from '../graph/assertJson.js';
import { AgentContext } from './AgentContext.js';
import type { Step } from './Step.js';
import type { ErrorMatcher } from './WorkflowBlock.js';
import { RUN_CHILD, type ChildResume, type SubWorkflowOutcome } from './runSubWorkflow.js';
import type { StepScope } from './WorkflowLane.js';
import { giveStepSignal, type StepSignalSource } from './stepSignal.js';
import { LOOP_KEY_PREFIX } from './workflowKeys.js';

/** The engine's own bookkeeping keys in a graph's state: not part of a workflow's context. */
const ENGINE_KEYS: ReadonlySet<string> = new Set(['currentNodeId', 'currentRequest', 'lastResult', 'lastNodeId']);

/** The workflow context held in a run's state (the engine's bookkeeping keys left out). */
export function contextFromState(state: Iterable<[string, unknown]>): AgentContext {
  const values: Record<string, unknown> = {};
  for (const [key, value] of state) if (!ENGINE_KEYS.has(key) && value !== undefined) values[key] = value;
  return AgentContext.trusted(Object.freeze(values));
}

/** The same, from a state object (a machine context's `state`). */
export function contextFromObject(state: Record<string, unknown>): AgentContext {
  return contextFromState(Object.entries(state));
}

/** Writes the keys `after` changed relative to `before` into the run's state (each checked as JSON there). */
export function writeBack(wctx: WorkflowContext, before: AgentContext, after: AgentContext): void {
  for (const [key, value] of Object.entries(after.changesFrom(before))) wctx.put(key, value);
  for (const key of before.keys()) if (!after.has(key)) wctx.state.delete(key);
}

function parse(schema: ZodType, value: unknown, step: string, what: 'input' | 'output'): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new WorkflowExecutionError(`step "${step}" ${what === 'input' ? 'received an input' : 'returned an output'} its ${what} schema refuses: ${formatZodError(parsed.error)}; ${what === 'input' ? 'fix the previous step or this step’s input schema' : 'return a value the schema accepts'}`, {
    code: what === 'input' ? 'invalid_input' : 'invalid_node_result',
    nodeId: step,
  });
}

/** What a step left: its output and the context the next steps see. */
export interface StepDone {
  output: unknown;
  context: AgentContext;
}

/**
 * Runs one step: the input checked against its schema, `execute`, the output checked, then
 * `updateContext` with the output. The context the step sees has `CURRENT_STEP` set to it. A
 * sub-workflow reports its own steps in the run's trace under the step's path (`scope`).
 */
export function executeStep(step: Step, ctx: AgentContext, input: unknown, scope?: StepScope, resume?: ChildResume): Promise<StepDone> {
  try {
    const done = executeStepNow(step, ctx, input, scope, resume);
    return done instanceof Promise ? done : Promise.resolve(done);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * {@link executeStep}, with the outcome of a step that answers at once (not a sub-workflow, an
 * `execute` that returns no promise) given back at once: a loop of such steps makes no promise
 * here. A failure of such a step throws. `signal`: where the step's `ctx.signal` comes from when
 * there is no `scope` (a step of the graph, whose node's signal is made only if the step reads it).
 */
export function executeStepNow(step: Step, ctx: AgentContext, input: unknown, scope?: StepScope, resume?: ChildResume, signal?: StepSignalSource): StepDone | Promise<StepDone> {
  const context = ctx.get(AgentContext.CURRENT_STEP) === step.name ? ctx : ctx.mutate().with(AgentContext.CURRENT_STEP, step.name).build();
  const given = step.input === undefined ? input : parse(step.input, input, step.name, 'input');
  const child = (step as { [RUN_CHILD]?: (ctx: AgentContext, input: unknown, scope?: StepScope, resume?: ChildResume) => Promise<SubWorkflowOutcome> })[RUN_CHILD];
  if (child === undefined) {
    const source = scope?.signal !== undefined ? scope : signal;
    if (source !== undefined) giveStepSignal(context, source);
    const output: unknown = step.execute(context, given);
    if (isThenable(output)) return Promise.resolve(output).then((settled) => finishStep(step, context, settled));
    return finishStep(step, context, output);
  }
  return child.call(step, context, given, scope, resume).then((done) => {
    // A sub-workflow: its final context is merged back (donor wins), but the run's own identity stays.
    const merged = context.mergeFrom(AgentContext.from(done.context)).mutate();
    for (const key of [AgentContext.WORKFLOW_RUN_ID, AgentContext.WORKFLOW_NAME, AgentContext.CURRENT_STEP]) {
      const own = context.get(key);
      if (own === undefined) merged.without(key);
      else merged.with(key, own);
    }
    // So do the parent's loop counters: a child's loop may have the same node id as the parent's
    // loop it runs in (both "loop"), and its count must not become the parent's.
    for (const key of Object.keys(done.context)) {
      if (!key.startsWith(LOOP_KEY_PREFIX)) continue;
      const own = context.get(key);
      if (own === undefined) merged.without(key);
      else merged.with(key, own);
    }
    return finishStep(step, merged.build(), done.output);
  });
}

/**
 * A step's output as JSON, in memory exactly as in a stored run (whose snapshot holds it): one JSON
 * cannot represent fails the step here, naming the step and where in the output it is, instead of
 * failing only a stored run at its next checkpoint.
 */
function checkJson(step: Step, output: unknown): void {
  const place = findNotJson(output, 'output');
  if (place === null) return;
  const what = place.what === null ? 'refers back to itself (a cycle)' : `holds ${place.what}`;
  throw new WorkflowExecutionError(
    `step "${step.name}" returned an output JSON cannot represent: ${place.at} ${what}; a step's output goes on to the next step and is stored with the run, so return plain objects, arrays, strings, finite numbers, booleans or null (a Date as an ISO string, a Map as an object)`,
    { code: 'not_json', nodeId: step.name },
  );
}

/** A step's output checked against its schema and as JSON, then `updateContext` with it. */
function finishStep(step: Step, stepContext: AgentContext, answer: unknown): StepDone {
  let context = stepContext;
  const output = step.output !== undefined ? parse(step.output, answer, step.name, 'output') : answer;
  checkJson(step, output);
  if (step.updateContext !== undefined) {
    const next: unknown = step.updateContext(context, output);
    if (!(next instanceof AgentContext)) {
      throw new WorkflowExecutionError(`step "${step.name}": updateContext returned ${next === null ? 'null' : typeof next}; return a context (ctx.mutate().with(key, value).build(), or ctx itself)`, {
        code: 'invalid_node_result',
        nodeId: step.name,
      });
    }
    context = next;
  }
  return { output, context };
}

/** True when `onError`'s matcher matches the thrown value: an instance of the class, or an error with that `code`. */
export function matchesError(match: ErrorMatcher, error: unknown): boolean {
  if (typeof match === 'function') return error instanceof match;
  if (error instanceof SwitchboardError) return error.code === match;
  return error !== null && typeof error === 'object' && (error as { code?: unknown }).code === match;
}
