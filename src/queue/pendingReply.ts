import type { RunRecord, RunStore } from '../persistence/RunStore.js';

/** The journal key a reply given through the queue is kept under. */
export const QUEUE_REPLY_KEY = 'queue.reply';

/**
 * What names one wait of a run: the step count of its waiting snapshot. The row's version does
 * not, since the leg that stopped at the wait writes the row again after it (its last events),
 * while the step count stays until a reply moves the run on.
 */
export function waitStep(record: Pick<RunRecord, 'snapshot'>): number {
  const steps = (record.snapshot as { context?: { steps?: unknown } } | null)?.context?.steps;
  return typeof steps === 'number' && Number.isInteger(steps) ? steps : 0;
}

/** Keeps `reply` for the wait `record` is at; the first reply kept for a wait stays. */
export function keepReply(store: RunStore, record: Pick<RunRecord, 'runId' | 'snapshot'>, reply: unknown): Promise<void> {
  return store.putJournal(record.runId, waitStep(record), QUEUE_REPLY_KEY, reply);
}

/** The reply given through the queue to the wait `record` is at, if any. */
export function pendingReply(store: RunStore, record: Pick<RunRecord, 'runId' | 'snapshot'>): Promise<{ value: unknown } | undefined> {
  return store.getJournal(record.runId, waitStep(record), QUEUE_REPLY_KEY);
}
