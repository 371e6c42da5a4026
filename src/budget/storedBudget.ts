import { z } from 'zod';
import { RunStateError } from '../errors/RunStateError.js';
import { formatZodError } from '../errors/formatZodError.js';
import { CARRIED_SPEND, type BudgetOptions } from './Budget.js';
import { PriceTable } from './PriceTable.js';

/** The part of a stored run's budget state (`snapshot.context.budget`) a retry starts from. */
const StoredBudget = z.object({
  limits: z.object({
    maxCost: z.number().optional(),
    maxTokens: z.number().optional(),
    maxIterations: z.number().optional(),
    maxDuration: z.number().optional(),
  }),
  prices: PriceTable.nullable(),
  models: z.record(z.string(), z.object({ input: z.number(), output: z.number(), total: z.number() })),
  tokens: z.number(),
  costUsd: z.number(),
  elapsedMs: z.number(),
});
/** The part of a stored run's budget state a retry starts from. */
type StoredBudget = z.infer<typeof StoredBudget>;

/**
 * The budgets a stored run was started with, carrying what it had spent (tokens, cost, active
 * time; its steps are counted again as the retry takes them), for `retryRun`; undefined for a run
 * without budgets. A budget state that does not read back is a RunStateError `snapshot_version`.
 */
export function storedBudget(snapshot: unknown, runId: string): BudgetOptions | undefined {
  const value = (snapshot as { context?: { budget?: unknown } } | null)?.context?.budget;
  if (value === undefined || value === null) return undefined;
  const parsed = StoredBudget.safeParse(value);
  if (!parsed.success) {
    throw new RunStateError(
      `run ${runId}'s stored budget does not read back (${formatZodError(parsed.error)}): the run was stored by another version of Switchboard or changed outside it; retry it from code with the budget it should have, retryRun(graph, runId, { store, budget })`,
      { code: 'snapshot_version', runId },
    );
  }
  const kept: StoredBudget = parsed.data;
  const { models, tokens, costUsd, elapsedMs } = kept;
  return { ...kept.limits, ...(kept.prices === null ? {} : { prices: kept.prices }), [CARRIED_SPEND]: { models, tokens, costUsd, elapsedMs } } as BudgetOptions;
}
