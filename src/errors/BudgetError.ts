import { SwitchboardError } from './SwitchboardError.js';
import type { BudgetExceeded } from '../budget/Budget.js';

/** Codes of {@link BudgetError}. */
export type BudgetErrorCode = 'invalid_budget' | 'budget_exceeded' | 'price_missing' | 'invalid_usage';

/**
 * A run's budget said no: `invalid_budget` (a limit or price in the run options is out of range;
 * nothing ran), `budget_exceeded` (a model call was refused because a budget is spent: `exceeded`
 * says which, its limit and what was spent; the run ends `budget-exceeded`), or `price_missing`
 * (a run with `maxCost` called a model that neither its `prices` nor the defaults name), or
 * `invalid_usage` (a model client reported token counts that are not finite numbers ≥ 0, which
 * the budgets could not count).
 */
export class BudgetError extends SwitchboardError {
  override readonly name = 'BudgetError';
  /** For `budget_exceeded`: the budget that was spent. */
  readonly exceeded: BudgetExceeded | null;

  constructor(message: string, options: { code: BudgetErrorCode; exceeded?: BudgetExceeded }) {
    super(message, { code: options.code, fault: 'user', retryable: false });
    this.exceeded = options.exceeded ?? null;
  }
}

/** The `budget_exceeded` error in `thrown` or its chain of causes, if any. */
export function budgetRefusal(thrown: unknown): BudgetError | null {
  for (let error = thrown, depth = 0; error !== null && typeof error === 'object' && depth < 8; depth += 1) {
    if (error instanceof BudgetError && error.code === 'budget_exceeded') return error;
    error = (error as { cause?: unknown }).cause;
  }
  return null;
}
