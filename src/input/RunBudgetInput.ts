import { z } from 'zod';
import type { BudgetOptions } from '../budget/Budget.js';
import { parseInput } from './parseInput.js';

/** The longest duration budget in ms (Node fires longer timers at once). */
const MAX_DURATION_MS = 2_147_483_647;

/**
 * A number given as a JSON number or in plain decimal digits (what a command line sends): `whole`
 * refuses a fraction; `1e3`, `0x10`, ` 7`, `""` and `Infinity` are refused, not read as something else.
 */
function amount(rule: string, options: { whole: boolean; min: number; max: number }) {
  const digits = options.whole ? /^[0-9]{1,16}$/ : /^[0-9]{1,16}(\.[0-9]{1,12})?$/;
  return z.union([z.number(), z.string()], { error: `must be ${rule}` }).transform((value, ctx) => {
    const n = typeof value === 'number' ? value : digits.test(value) ? Number(value) : NaN;
    if (!Number.isFinite(n) || n < options.min || n > options.max || (options.whole && !Number.isSafeInteger(n))) {
      ctx.addIssue({ code: 'custom', message: `must be ${rule}; received ${JSON.stringify(value)}` });
      return z.NEVER;
    }
    return n;
  });
}

/**
 * A run's budgets as a command line or an HTTP body gives them (`switchboard run|start --max-cost
 * --max-tokens --max-iterations --max-duration`, `POST /api/runs` `{ budget }`): the four limits of
 * `RunOptions.budget`, each a JSON number or plain decimal digits. Prices are not taken here (the
 * defaults price the common models). Unknown keys are refused.
 */
export const RunBudgetInput = z.strictObject({
  maxCost: amount('US dollars as a plain decimal number, 0 or more (e.g. 0.05)', { whole: false, min: 0, max: Number.MAX_SAFE_INTEGER }).optional(),
  maxTokens: amount('a whole number of tokens, 0 or more, in plain decimal digits (e.g. 20000)', { whole: true, min: 0, max: Number.MAX_SAFE_INTEGER }).optional(),
  maxIterations: amount('a whole number of steps, 1 or more, in plain decimal digits (e.g. 30)', { whole: true, min: 1, max: Number.MAX_SAFE_INTEGER }).optional(),
  maxDuration: amount(`milliseconds as a whole number from 1 to ${MAX_DURATION_MS} (e.g. 60000 for a minute)`, { whole: true, min: 1, max: MAX_DURATION_MS }).optional(),
});
/** A run's budgets as a command line or an HTTP body gives them. */
export type RunBudgetInput = z.infer<typeof RunBudgetInput>;

/** The command-line flag of each budget. */
export const BUDGET_FLAGS = { maxCost: '--max-cost', maxTokens: '--max-tokens', maxIterations: '--max-iterations', maxDuration: '--max-duration' } as const;

/**
 * The budgets a command was given (its `--max-*` options as commander parsed them), checked one by
 * one so an `InputError` names the flag: `--max-tokens: must be a whole number of tokens…; received
 * "1.5"`. Undefined when none was given.
 */
export function budgetFromFlags(opts: Partial<Record<keyof typeof BUDGET_FLAGS, string>>): BudgetOptions | undefined {
  const budget: BudgetOptions = {};
  for (const key of Object.keys(BUDGET_FLAGS) as Array<keyof typeof BUDGET_FLAGS>) {
    const raw = opts[key];
    if (raw !== undefined) budget[key] = parseInput(RunBudgetInput.shape[key], raw, BUDGET_FLAGS[key]);
  }
  return Object.keys(budget).length === 0 ? undefined : budget;
}

/** The `--max-*` options of `run` and `start`, for commander: flag, description. */
export const BUDGET_OPTION_HELP: ReadonlyArray<[string, string]> = [
  ['--max-cost <usd>', 'budget: US dollars the run’s model calls may cost; spent, the run ends budget-exceeded'],
  ['--max-tokens <n>', 'budget: tokens (input + output) the run’s model calls may use'],
  ['--max-iterations <n>', 'budget: steps the run may make'],
  ['--max-duration <ms>', 'budget: milliseconds the run may be active (waiting for a person does not count)'],
];
