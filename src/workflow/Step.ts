import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import type { ZodType } from 'zod';
import type { AgentContext } from './AgentContext.js';

/** Whether a step calls a model or agent (`agent`) or is plain code (`deterministic`). */
export type StepKind = 'agent' | 'deterministic';

/**
 * One unit of a workflow: takes the previous step's output as its input and returns its own
 * output, which flows on as the next step's input. The output must be JSON (it is stored with the
 * run): one that is not fails the step with a `not_json` error naming the step and the place. `updateContext` is called after `execute`
 * with its output and returns the context the next steps see: values flow through outputs,
 * metadata through the context. `input` / `output` schemas make the step typed: values are
 * parsed at run time and `assertTypeCompatible` checks neighbours without running anything.
 */
export interface Step<I = unknown, O = unknown> {
  readonly name: string;
  /**
   * Does the step's work. `ctx.signal` aborts when the run is cancelled or its `maxDuration` budget
   * is spent while the step runs: a long step passes it on (`fetch(url, { signal: ctx.signal })`)
   * or checks it (`ctx.signal.throwIfAborted()`) to stop with its run.
   */
  execute(ctx: AgentContext, input: I): O | Promise<O>;
  updateContext?(ctx: AgentContext, output: O): AgentContext;
  /** The input schema (typed loosely so a step that accepts anything fits after any step; `execute` carries `I`). */
  readonly input?: ZodType;
  readonly output?: ZodType<O>;
  readonly kind?: StepKind;
}

/** The input type of a step. */
export type StepInput<S> = S extends Step<infer I, infer _O> ? I : never;
/** The output type of a step. */
export type StepOutput<S> = S extends Step<infer _I, infer O> ? O : never;

/** Options of {@link step}. */
export interface StepOptions<I, O> {
  /** Schema the input must pass (makes the step typed at its input). */
  input?: ZodType<I>;
  /** Schema the output must pass (makes the step typed at its output). */
  output?: ZodType<O>;
  kind?: StepKind;
  /** Called after `execute` with its output; returns the context the next steps see. */
  updateContext?: (ctx: AgentContext, output: O) => AgentContext;
}

/** Checks a step name: a non-blank string that does not start with `__` (reserved). */
export function checkStepName(name: unknown, where: string): string {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new GraphDefinitionError(`${where}: a step name must be a non-blank string; received ${typeof name === 'string' ? '""' : typeof name}`);
  }
  if (name.startsWith('__')) throw new GraphDefinitionError(`${where}: step names starting with "__" are reserved; rename step "${name}"`);
  return name;
}

/**
 * Makes a step from a function. The function gets the step's context (its `signal` aborts when the
 * run is cancelled or runs out of `maxDuration`) and the previous step's output.
 *
 * @example
 * const words = step('count-words', (_ctx, text: string) => text.split(/\s+/).length, { output: z.number() });
 * const page = step('fetch', async (ctx, url: string) => (await fetch(url, { signal: ctx.signal })).text());
 */
export function step<I, O>(name: string, fn: (ctx: AgentContext, input: I) => O | Promise<O>, options: StepOptions<I, O> = {}): Step<I, O> {
  checkStepName(name, 'step()');
  if (typeof fn !== 'function') throw new GraphDefinitionError(`step("${name}"): the second argument must be a function (ctx, input) => output`);
  const made: { -readonly [K in keyof Step<I, O>]: Step<I, O>[K] } = { name, execute: fn, kind: options.kind ?? 'deterministic' };
  if (options.input !== undefined) made.input = options.input;
  if (options.output !== undefined) made.output = options.output;
  if (options.updateContext !== undefined) made.updateContext = options.updateContext;
  return Object.freeze(made);
}

/** A step that passes its input through unchanged (named, it can be referred to in the graph). */
export function noop<T = unknown>(name = 'noop'): Step<T, T> {
  return step<T, T>(name, (_ctx, input) => input);
}
