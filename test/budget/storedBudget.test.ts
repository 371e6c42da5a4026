import { describe, expect, it } from 'vitest';
import { storedBudget } from '../../src/budget/storedBudget.js';
import { RunStateError } from '../../src/errors/RunStateError.js';

describe('storedBudget', () => {
  it('is undefined for a run stored without budgets', () => {
    expect(storedBudget({ context: {} }, 'r')).toBeUndefined();
    expect(storedBudget(null, 'r')).toBeUndefined();
  });

  it('refuses a stored budget that does not read back as snapshot_version, naming the field and how to retry anyway', () => {
    const snapshot = { context: { budget: { limits: { maxTokens: 'many' }, prices: null, models: {}, tokens: 0, costUsd: 0, elapsedMs: 0 } } };
    let thrown: unknown;
    try {
      storedBudget(snapshot, 'run-7');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RunStateError);
    expect(thrown).toMatchObject({ code: 'snapshot_version', runId: 'run-7' });
    expect((thrown as Error).message).toContain('maxTokens');
    expect((thrown as Error).message).toContain('retryRun(graph, runId, { store, budget })');
  });
});
