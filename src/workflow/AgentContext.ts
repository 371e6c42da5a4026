import { z } from 'zod';
import { StateModel } from '../state/StateModel.js';
import { ContextKeyMissingError } from './ContextKeyMissingError.js';
import { contextKey, type ContextKey } from './contextKey.js';
import { JudgeVerdict } from './JudgeVerdict.js';
import { giveStepSignal, stepSignalSource, type StepSignalSource } from './stepSignal.js';

/** A key as the context accepts it: a typed {@link ContextKey}, or a plain name (any JSON value). */
export type AnyKey<T> = ContextKey<T> | string;

const nameOf = (key: AnyKey<unknown>): string => (typeof key === 'string' ? key : key.name);
const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The metadata a workflow's steps share, beside the values that flow from step to step. Immutable
 * and JSON: every write makes a new context, and each written value is checked (against its key's
 * schema for a typed key, as JSON for any key), copied and frozen, by the same checks a graph's
 * state uses. A context is what a workflow run's `context` is, what its snapshots store, and what
 * a sub-workflow gets from its parent.
 *
 * @example
 * const TOPIC = contextKey('topic', z.string());
 * const ctx = AgentContext.empty().mutate().with(TOPIC, 'billing').build();
 * ctx.require(TOPIC); // 'billing'
 */
export class AgentContext {
  /** The run's id. */
  static readonly WORKFLOW_RUN_ID = contextKey('workflow.runId', z.string());
  /** The name of the workflow that is running (the innermost one in a sub-workflow). */
  static readonly WORKFLOW_NAME = contextKey('workflow.name', z.string());
  /** The step that is running. */
  static readonly CURRENT_STEP = contextKey('workflow.currentStep', z.string());
  /** Passes the innermost loop has made (1 on its first pass). */
  static readonly ITERATION_COUNT = contextKey('workflow.iterationCount', z.number().int().nonnegative());
  /** Cost reported by model steps so far (in the model's currency unit). */
  static readonly ACCUMULATED_COST = contextKey('workflow.accumulatedCost', z.number().nonnegative());
  /** Tokens reported by model and agent steps so far. */
  static readonly ACCUMULATED_TOKENS = contextKey('workflow.accumulatedTokens', z.number().int().nonnegative());
  /**
   * Set when one of the run's budgets (`budget` in the run options) is spent: which one, its limit
   * and what was spent. What a workflow's `onBudgetExceeded` step reads.
   */
  static readonly BUDGET_EXCEEDED = contextKey(
    'workflow.budgetExceeded',
    z.object({ budget: z.enum(['maxCost', 'maxTokens', 'maxIterations', 'maxDuration']), limit: z.number(), spent: z.number() }),
  );
  /** The last gate verdict: decision, score and reasons. */
  static readonly JUDGE_VERDICT = contextKey('judge.verdict', JudgeVerdict);
  /** The reflector's feedback on the last failed verdict. */
  static readonly JUDGE_REFLECTION = contextKey('judge.reflection', z.string());

  readonly #values: Readonly<Record<string, unknown>>;

  private constructor(values: Readonly<Record<string, unknown>>) {
    this.#values = values;
  }

  /** A context with no keys. */
  static empty(): AgentContext {
    return new AgentContext(EMPTY);
  }

  /** A context holding these values, each checked as JSON (e.g. a run's initial context or a stored one). */
  static from(values: Record<string, unknown> | AgentContext | undefined | null): AgentContext {
    if (values instanceof AgentContext) return values;
    if (values === undefined || values === null) return AgentContext.empty();
    return new AgentContext(Object.freeze(StateModel.untyped.initial(values)));
  }

  /** Wraps values already checked and frozen (the engine's state); not for outside data. */
  static trusted(values: Readonly<Record<string, unknown>>): AgentContext {
    return new AgentContext(values);
  }

  /**
   * The abort signal of the step this context was given to: it aborts when the run is cancelled
   * (`signal` in the run options, `RunManager.cancel`, …) or its `maxDuration` budget is spent while
   * the step is in flight. Pass it on to what a long step awaits (`fetch(url, { signal: ctx.signal })`)
   * or check it in a loop (`ctx.signal.throwIfAborted()`), so the step stops with its run; a step
   * that ignores it is abandoned and goes on in the background. Not part of the context's values
   * (it is not JSON and is never stored); a context made from this one (`mutate()`, `mergeFrom`)
   * has the same signal. Outside a run (a step's `execute` called directly) it never aborts.
   *
   * @example
   * const fetchPage = step('fetch', async (ctx, url: string) => (await fetch(url, { signal: ctx.signal })).text());
   */
  get signal(): AbortSignal {
    let source = stepSignalSource(this);
    if (source?.signal === undefined) giveStepSignal(this, (source = { signal: new AbortController().signal }));
    return source.signal!;
  }

  /** The value under the key, or undefined. */
  get<T>(key: ContextKey<T>): T | undefined;
  get(key: string): unknown;
  get(key: AnyKey<unknown>): unknown {
    return this.#values[nameOf(key)];
  }

  /** The value under the key; throws `ContextKeyMissingError` naming the key (and the step reading it) when there is none. */
  require<T>(key: ContextKey<T>): T;
  require(key: string): unknown;
  require(key: AnyKey<unknown>): unknown {
    const value = this.#values[nameOf(key)];
    if (value === undefined) {
      // The step that reads it is the one to fix (or the one before it): name it, as a bad write does.
      const step = this.#values[AgentContext.CURRENT_STEP.name];
      throw new ContextKeyMissingError(nameOf(key), this.keys(), typeof step === 'string' ? step : null);
    }
    return value;
  }

  /** True when the key has a value. */
  has(key: AnyKey<unknown>): boolean {
    return this.#values[nameOf(key)] !== undefined;
  }

  /** The names of the keys that have values. */
  keys(): string[] {
    return Object.keys(this.#values);
  }

  /** Starts a change: `ctx.mutate().with(key, value).build()` returns a new context. */
  mutate(): ContextBuilder {
    return new ContextBuilder(this.#values, stepSignalSource(this));
  }

  /** This context overlaid with the donor's keys (the donor wins where both have a key). */
  mergeFrom(donor: AgentContext): AgentContext {
    const theirs = donor.toJSON();
    if (Object.keys(theirs).length === 0) return this;
    return withSignal(new AgentContext(Object.freeze({ ...this.#values, ...theirs })), stepSignalSource(this));
  }

  /** The keys this context sets differently from `base` (what a step wrote). */
  changesFrom(base: AgentContext): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const before = base.toJSON();
    for (const [key, value] of Object.entries(this.#values)) if (before[key] !== value) out[key] = value;
    return out;
  }

  /** The values as a frozen plain object. */
  toJSON(): Readonly<Record<string, unknown>> {
    return this.#values;
  }
}

/**
 * Collects writes for a new {@link AgentContext}. Each `with` checks its value at once (a typed
 * key's schema, else JSON), so a bad write throws at the line that made it, naming the key; the
 * step that made it (the context's `CURRENT_STEP`) is named too.
 */
export class ContextBuilder {
  readonly #values: Record<string, unknown>;
  readonly #signal: StepSignalSource | undefined;
  #changed = false;

  /** @internal made by `AgentContext.mutate()`. */
  constructor(values: Readonly<Record<string, unknown>>, signal?: StepSignalSource) {
    this.#values = { ...values };
    this.#signal = signal;
  }

  /** Sets the key (a typed key's value must pass its schema; the parsed value is kept). */
  with<T>(key: ContextKey<T>, value: T): ContextBuilder;
  with(key: string, value: unknown): ContextBuilder;
  with(key: AnyKey<unknown>, value: unknown): ContextBuilder {
    const name = nameOf(key);
    const step = this.#values[AgentContext.CURRENT_STEP.name];
    const model = typeof key === 'string' ? StateModel.untyped : key.model;
    this.#values[name] = model.check(name, value, typeof step === 'string' ? step : null);
    if (this.#values[name] === undefined) delete this.#values[name];
    this.#changed = true;
    return this;
  }

  /** Removes the key. */
  without(key: AnyKey<unknown>): ContextBuilder {
    delete this.#values[nameOf(key)];
    this.#changed = true;
    return this;
  }

  /** The new context. */
  build(): AgentContext {
    return withSignal(AgentContext.trusted(Object.freeze(this.#changed ? { ...this.#values } : this.#values)), this.#signal);
  }
}

/** `ctx` with the signal of the context it was made from (see `AgentContext.signal`). */
function withSignal(ctx: AgentContext, source: StepSignalSource | undefined): AgentContext {
  if (source !== undefined) giveStepSignal(ctx, source);
  return ctx;
}
