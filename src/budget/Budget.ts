import { BudgetError } from '../errors/BudgetError.js';
import { describeValue } from '../graph/describeValue.js';
import { ModelPrice, priceTableProblem, type PriceTable } from './PriceTable.js';

/** The four budgets a run can have. */
export type BudgetName = 'maxCost' | 'maxTokens' | 'maxIterations' | 'maxDuration';

/**
 * A run's budgets (`RunOptions.budget`, the same for `StateGraph`, `SequentialWorkflow` and
 * `Workflow` runs). Each is checked before every step and every model call; once one is spent the
 * run ends with status `budget-exceeded` (or goes to the graph's `onBudgetExceeded` node).
 * Budgets belong to a run (`run`, `stream`, `resumeRun`, or a parent run whose step runs a
 * sub-workflow): a machine started with plain `createActor(workflow.toMachine())` has none, and
 * refuses a `budget` in its input (`invalid_input`).
 *
 * @example
 * await graph.run('hi', { budget: { maxCost: 0.05, maxTokens: 20_000, maxDuration: 60_000, prices: { 'my-model': { input: 1, output: 2 } } } });
 */
export interface BudgetOptions {
  /** US dollars the run's model calls may cost, priced by `prices` and then {@link DEFAULT_PRICES}. */
  maxCost?: number;
  /** Tokens (input plus output, as the model layer reports them) the run's model calls may use. */
  maxTokens?: number;
  /**
   * Steps the run may make: each executed leaf step counts once, wherever it ran. For a graph, its
   * node executions (the run's `steps`); a `Workflow`'s sub-workflow counts as if its steps were
   * inline (its steps count, the step that runs it and its own finish step do not), and its steps are
   * checked against the limit as they run (`spent.iterations` reports the same count).
   */
  maxIterations?: number;
  /** Milliseconds the run may be active (time spent waiting for a person is not counted); a model call or tool in flight is aborted when it is spent. */
  maxDuration?: number;
  /** Prices per model id, used before the defaults (USD per million input and output tokens). */
  prices?: PriceTable;
}

/** Which budget was spent, its limit and what had been spent when the run stopped. */
export interface BudgetExceeded {
  budget: BudgetName;
  limit: number;
  spent: number;
}

/** Token counts of one model over a run. */
export interface ModelTokens {
  input: number;
  output: number;
  total: number;
}

/**
 * A run's budgets and what it has spent, as kept in the machine context (plain JSON, so it is
 * stored with every checkpoint and carried into a resumed run).
 */
export interface BudgetState {
  limits: Omit<BudgetOptions, 'prices'>;
  prices: PriceTable | null;
  /** Tokens by model id (the name of the model client that reported them). */
  models: Record<string, ModelTokens>;
  tokens: number;
  costUsd: number;
  /** Active milliseconds of the legs before the current one (the current leg's are added at each step). */
  elapsedMs: number;
  /** Set once a budget is spent; from then on the budgets no longer stop the run (its `onBudgetExceeded` node runs). */
  exceeded: BudgetExceeded | null;
  /**
   * True once the run's `onBudgetExceeded` node has completed (absent: false): from then on no model
   * call is made (a node that tries fails the run, `budget_exceeded`) until a person replies to a
   * human node, so a handler that leads back into the work cannot spend past the limit.
   */
  locked?: boolean;
  /**
   * Steps executed inside sub-workflows, less the sub-workflow steps that ran them (absent: 0). A
   * run's iterations are its own steps plus these: each executed leaf step counts once, wherever it ran.
   */
  nestedSteps?: number;
}

/** The shared-state key holding the tokens a run with a budget has used. */
export const ACCUMULATED_TOKENS = 'workflow.accumulatedTokens';
/** The shared-state key holding what a run with a budget has cost so far (USD). */
export const ACCUMULATED_COST = 'workflow.accumulatedCost';
/** The shared-state key a run's `onBudgetExceeded` node finds the spent budget in (`{ budget, limit, spent }`). */
export const BUDGET_EXCEEDED = 'workflow.budgetExceeded';

/** The longest duration budget: Node fires longer timers at once. */
const MAX_DURATION_MS = 2_147_483_647;

/**
 * What a retried run carries over from the leg that failed (see `retryRun`), set on its
 * `BudgetOptions` under this key: the money and time were spent, so the retry counts on from them.
 */
export const CARRIED_SPEND = Symbol('switchboard.carriedSpend');

/** The spend {@link CARRIED_SPEND} carries. */
export interface CarriedSpend {
  models: Record<string, ModelTokens>;
  tokens: number;
  costUsd: number;
  elapsedMs: number;
}

const BUDGET_KEYS = new Set(['maxCost', 'maxTokens', 'maxIterations', 'maxDuration', 'prices']);

/** Checks `RunOptions.budget` and turns it into the context's initial budget state (null without one). */
export function initialBudget(options: unknown, where = 'RunOptions.budget'): BudgetState | null {
  if (options === undefined || options === null) return null;
  const refuse = (field: string, expected: string, value: unknown): never => {
    throw new BudgetError(`${where}${field}: expected ${expected}; received ${describeValue(value)}`, { code: 'invalid_budget' });
  };
  if (typeof options !== 'object' || Array.isArray(options)) refuse('', 'an object { maxCost?, maxTokens?, maxIterations?, maxDuration?, prices? }', options);
  const given = options as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!BUDGET_KEYS.has(key)) refuse(`.${key}`, 'no such budget (maxCost, maxTokens, maxIterations, maxDuration or prices)', given[key]);
  }
  const limits: BudgetState['limits'] = {};
  const number = (key: 'maxCost' | 'maxTokens' | 'maxIterations' | 'maxDuration', whole: boolean, min: number, expected: string) => {
    const value = given[key];
    if (value === undefined) return;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || (whole && !Number.isInteger(value))) refuse(`.${key}`, expected, value);
    limits[key] = value as number;
  };
  number('maxCost', false, 0, 'US dollars as a finite number ≥ 0');
  number('maxTokens', true, 0, 'a whole number of tokens ≥ 0');
  number('maxIterations', true, 1, 'a whole number of steps ≥ 1');
  number('maxDuration', false, 1, 'milliseconds as a finite number ≥ 1');
  if ((limits.maxDuration ?? 0) > MAX_DURATION_MS) refuse('.maxDuration', `at most ${MAX_DURATION_MS} ms (about 24.8 days, the longest timer Node keeps)`, limits.maxDuration);
  let prices: PriceTable | null = null;
  if (given.prices !== undefined) {
    const problem = priceTableProblem(given.prices);
    if (problem !== null) refuse(`.prices${problem.field}`, problem.expected, problem.value);
    prices = {};
    for (const [model, price] of Object.entries(given.prices as Record<string, unknown>)) prices[model] = ModelPrice.parse(price);
  }
  const carried = (given as { [CARRIED_SPEND]?: CarriedSpend })[CARRIED_SPEND];
  if (carried !== undefined) return { limits, prices, models: { ...carried.models }, tokens: carried.tokens, costUsd: carried.costUsd, elapsedMs: carried.elapsedMs, exceeded: null };
  return { limits, prices, models: {}, tokens: 0, costUsd: 0, elapsedMs: 0, exceeded: null };
}

const UNITS: Record<BudgetName, string> = { maxCost: 'USD', maxTokens: 'tokens', maxIterations: 'steps', maxDuration: 'ms' };

/** A sentence saying which budget was spent, its limit and what was spent. */
export function describeExceeded({ budget, limit, spent }: BudgetExceeded): string {
  const n = (x: number) => (Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(6))));
  return `the run's ${budget} budget is spent: ${n(spent)} of ${n(limit)} ${UNITS[budget]}`;
}

/** The error a run that ended `budget-exceeded` reports (code `budget_exceeded`, with `exceeded`). */
export function exceededError(exceeded: BudgetExceeded): BudgetError {
  return new BudgetError(`${describeExceeded(exceeded)}; the run stopped with its last output kept`, { code: 'budget_exceeded', exceeded });
}
