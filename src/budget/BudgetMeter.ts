import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../graph/RunOptions.js';
import type { ModelUsage } from '../model/ModelMessage.js';
import { BudgetError } from '../errors/BudgetError.js';
import { describeValue } from '../graph/describeValue.js';
import type { BudgetExceeded, BudgetState } from './Budget.js';
import { costOf, priceFor } from './PriceTable.js';

const scope = new AsyncLocalStorage<BudgetMeter>();

/**
 * What a run with a budget has spent, live: the tokens and cost of its model calls (including
 * those of the node in flight) and its active time. One per leg of a run (a resumed leg starts from
 * the budget state its snapshot kept). Model clients find it through {@link currentMeter}: the
 * engine runs each node inside the meter's scope.
 */
export class BudgetMeter {
  readonly #state: BudgetState;
  readonly #clock: Clock;
  readonly #legStart: number;
  #models: BudgetState['models'];
  #tokens: number;
  #costUsd: number;
  #exceeded: BudgetExceeded | null;
  /** See `BudgetState.locked`. */
  #locked: boolean;
  /** See `BudgetState.nestedSteps`. */
  #nested: number;
  /** The top-level machine's steps at its last check: the base nested steps count from. */
  #rootSteps = 0;
  #controller: AbortController | null = null;

  constructor(state: BudgetState, clock: Clock) {
    this.#state = state;
    this.#clock = clock;
    this.#legStart = clock.now();
    // Kept by reference until a call adds usage ({@link record} makes a new object), so
    // {@link changedSince} can tell by identity.
    this.#models = state.models;
    this.#tokens = state.tokens;
    this.#costUsd = state.costUsd;
    this.#exceeded = state.exceeded;
    this.#locked = state.locked === true;
    this.#nested = state.nestedSteps ?? 0;
  }

  /** The run's iterations: its top-level steps (as last checked) plus the nested ones. */
  get iterations(): number {
    return this.#rootSteps + this.#nested;
  }

  /**
   * After a step of the top-level machine, its `steps` so far: the first budget spent, counting the
   * steps executed inside sub-workflows too (see {@link check}).
   */
  checkStep(steps: number, now?: number): BudgetExceeded | null {
    this.#rootSteps = steps;
    return this.check(steps + this.#nested, now);
  }

  /** After a step of a sub-workflow run under this meter: it counts as one iteration of the run, then the budgets are checked. */
  checkNestedStep(now?: number): BudgetExceeded | null {
    this.#nested += 1;
    return this.check(this.#rootSteps + this.#nested, now);
  }

  /**
   * A sub-workflow step ended (however): the step that ran it does not count itself, its own steps
   * did. Call it once per sub-workflow run, after it.
   */
  leaveSubWorkflow(): void {
    this.#nested -= 1;
  }

  /**
   * Runs `fn` with this meter as the {@link currentMeter} of every model call it makes. Where the
   * meter is already current (the steps of a leg follow from its start, see {@link enter}), `fn`
   * is called as it is, without entering the async context again.
   */
  scope<T>(fn: () => T): T {
    return scope.getStore() === this ? fn() : scope.run(this, fn);
  }

  get tokens(): number {
    return this.#tokens;
  }

  get costUsd(): number {
    return this.#costUsd;
  }

  /** Active milliseconds so far: the earlier legs' and this one's (`now`: a reading of the run's clock just taken, if any). */
  elapsed(now: number = this.#clock.now()): number {
    return this.#state.elapsedMs + (now - this.#legStart);
  }

  /** The budget already spent (once the run has been stopped for one, nothing is checked any more). */
  get exceeded(): BudgetExceeded | null {
    return this.#exceeded;
  }

  /**
   * The first budget spent — cost, tokens, duration, then (given the steps made so far) iterations —
   * or null. Spent means what was used has reached the limit. Null once the run was stopped for one.
   * `now`: a reading of the run's clock the caller just took (the end of a step), so the duration
   * budget needs no reading of its own.
   */
  check(steps?: number, now?: number): BudgetExceeded | null {
    if (this.#exceeded !== null) return null;
    const { maxCost, maxTokens, maxDuration, maxIterations } = this.#state.limits;
    if (maxCost !== undefined && this.#costUsd >= maxCost) return { budget: 'maxCost', limit: maxCost, spent: this.#costUsd };
    if (maxTokens !== undefined && this.#tokens >= maxTokens) return { budget: 'maxTokens', limit: maxTokens, spent: this.#tokens };
    if (maxDuration !== undefined) {
      const elapsed = this.elapsed(now);
      if (elapsed >= maxDuration) return { budget: 'maxDuration', limit: maxDuration, spent: elapsed };
    }
    if (steps !== undefined && maxIterations !== undefined && steps >= maxIterations) return { budget: 'maxIterations', limit: maxIterations, spent: steps };
    return null;
  }

  /** Records that the run was stopped for `exceeded`: the budgets stop checking. */
  stop(exceeded: BudgetExceeded): void {
    this.#exceeded ??= exceeded;
  }

  /** The run's `onBudgetExceeded` node completed: no model call from now on (see `BudgetState.locked`). */
  lock(): void {
    if (this.#exceeded !== null) this.#locked = true;
  }

  /** A person replied to a human node: what follows runs as they decided, model calls included. */
  release(): void {
    this.#locked = false;
  }

  /**
   * Before a model call: throws a `budget_exceeded` BudgetError when a budget is spent, or a
   * `price_missing` one when the run has `maxCost` and nothing prices `model`.
   */
  beforeCall(model: string): void {
    const stopped = this.#exceeded;
    if (this.#locked && stopped !== null) {
      throw new BudgetError(
        `the run's ${stopped.budget} budget was spent (${format(stopped.spent)} of ${format(stopped.limit)}) and its onBudgetExceeded node has run: no model call is made after it until a person replies to a human node; the call to "${model}" was not made`,
        { code: 'budget_exceeded', exceeded: stopped },
      );
    }
    const spent = this.check();
    if (spent !== null) {
      throw new BudgetError(`the run's ${spent.budget} budget is spent (${format(spent.spent)} of ${format(spent.limit)}); the model call to "${model}" was not made`, {
        code: 'budget_exceeded',
        exceeded: spent,
      });
    }
    if (this.#state.limits.maxCost !== undefined && this.#exceeded === null && priceFor(model, this.#state.prices ?? undefined) === null) {
      throw new BudgetError(
        `the run has a maxCost budget but no price for model "${model}"; add it to budget.prices as { "${model}": { input, output } } (USD per million tokens)`,
        { code: 'price_missing' },
      );
    }
  }

  /** Adds a model call's reported usage (its total, or input plus output when no total was reported). */
  record(model: string, usage: ModelUsage | undefined): void {
    // NaN never reaches a limit and a negative count gives tokens back: either would switch the budgets off.
    for (const field of ['inputTokens', 'outputTokens', 'totalTokens'] as const) {
      const value: unknown = usage?.[field];
      if (value === undefined || value === null || (typeof value === 'number' && Number.isFinite(value) && value >= 0)) continue;
      throw new BudgetError(`${model} reported usage.${field} ${describeValue(value)}; a model client must report token counts as finite numbers ≥ 0 (leave out a count it does not know)`, { code: 'invalid_usage' });
    }
    const input = usage?.inputTokens ?? 0;
    const output = usage?.outputTokens ?? 0;
    const total = usage?.totalTokens ?? input + output;
    if (total === 0 && input === 0 && output === 0) return;
    const before = this.#models[model];
    const now = { input: (before?.input ?? 0) + input, output: (before?.output ?? 0) + output, total: (before?.total ?? 0) + total };
    this.#models = { ...this.#models, [model]: now };
    this.#tokens += total;
    // The cost is recomputed from the token totals, so it is the same however the calls were split.
    let cost = 0;
    for (const [name, tokens] of Object.entries(this.#models)) {
      const price = priceFor(name, this.#state.prices ?? undefined);
      if (price !== null) cost += costOf(price, tokens.input, tokens.output);
    }
    this.#costUsd = cost;
  }

  /** Aborts when the duration budget runs out (see {@link expire}); made on first read. */
  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }

  /** The duration budget ran out: model calls in flight see their signal abort. */
  expire(): void {
    (this.#controller ??= new AbortController()).abort(
      new BudgetError(`the run's maxDuration budget (${format(this.#state.limits.maxDuration ?? 0)} ms) is spent`, {
        code: 'budget_exceeded',
        exceeded: { budget: 'maxDuration', limit: this.#state.limits.maxDuration ?? 0, spent: this.elapsed() },
      }),
    );
  }

  /** True when the run has a duration budget (model calls then take the meter's signal too). */
  get timed(): boolean {
    return this.#state.limits.maxDuration !== undefined;
  }

  /**
   * True when what was spent (tokens, cost, tokens by model) or the stop differs from `state`, the
   * budget state the machine context holds. Active time is not compared: it grows at every step,
   * and is written into the context only with something else, when the run waits or ends, and into
   * every stored snapshot (see `persistedSnapshot`).
   */
  changedSince(state: BudgetState | null): boolean {
    return (
      state === null ||
      this.#nested !== (state.nestedSteps ?? 0) ||
      this.#tokens !== state.tokens ||
      this.#costUsd !== state.costUsd ||
      this.#models !== state.models ||
      this.#exceeded !== state.exceeded ||
      this.#locked !== (state.locked === true)
    );
  }

  /** The budget state to keep in the machine context now. */
  toState(exceeded: BudgetExceeded | null = this.#exceeded): BudgetState {
    const state: BudgetState = { ...this.#state, models: this.#models, tokens: this.#tokens, costUsd: this.#costUsd, elapsedMs: this.elapsed(), exceeded };
    if (this.#nested !== 0) state.nestedSteps = this.#nested;
    else delete state.nestedSteps;
    if (this.#locked) state.locked = true;
    else delete state.locked;
    return state;
  }
}

const format = (n: number): string => (Number.isInteger(n) ? String(n) : n.toPrecision(6));

let legsWithMeters = 0;

/**
 * Marks a leg of a run with a budget as running; call the returned function when it ends. While no
 * such leg runs, the meter's async context is switched off, so runs without a budget pay nothing
 * for it (on Node 20 an active AsyncLocalStorage tracks every promise of the process).
 */
export function holdMeterScope(): () => void {
  legsWithMeters += 1;
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    legsWithMeters -= 1;
    if (legsWithMeters === 0) scope.disable();
  };
}

/** The meter of the run whose node is executing here, if that run has a budget. */
export function currentMeter(): BudgetMeter | undefined {
  return scope.getStore();
}

/**
 * For model clients: checks the run's budget before a call (throwing a `BudgetError` when it is
 * spent) and returns the signal the call must honour — the caller's, joined with the run's duration
 * budget. Call {@link recordModelUsage} with the usage once the call answers. Without a run budget
 * in scope it returns `signal` unchanged and costs nothing. The built-in clients (`OpenAIChatModel`,
 * `OfflineModel`, `ScriptedModel`) already do this; a custom `ModelClient` should too.
 */
export function beforeModelCall(model: string, signal: AbortSignal | undefined): AbortSignal | undefined {
  const meter = scope.getStore();
  if (meter === undefined) return signal;
  meter.beforeCall(model);
  if (!meter.timed) return signal;
  return signal === undefined ? meter.signal : AbortSignal.any([signal, meter.signal]);
}

/**
 * The signal that aborts when the duration budget of the run executing here runs out (undefined
 * outside a run with a `maxDuration`): for work a step starts itself, such as an agent's tool calls,
 * so it stops with the run wherever the step runs (a sub-workflow, a branch).
 */
export function durationBudgetSignal(): AbortSignal | undefined {
  const meter = scope.getStore();
  return meter !== undefined && meter.timed ? meter.signal : undefined;
}

/** For model clients: adds one call's usage to the budget of the run it belongs to (no-op outside a run with a budget). */
export function recordModelUsage(model: string, usage: ModelUsage | undefined): void {
  scope.getStore()?.record(model, usage);
}
