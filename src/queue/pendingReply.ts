import type { RunRecord, RunStore } from '../persistence/RunStore.js';

/** The journal key a reply given through the queue is kept under (its step is the waiting row's version). */
export const QUEUE_REPLY_KEY = 'queue.reply';

/** The reply given through the queue to the wait `record` is at, if any. */
export function pendingReply(store: RunStore, record: Pick<RunRecord, 'runId' | 'version'>): Promise<{ value: unknown } | undefined> {
  return store.getJournal(record.runId, record.version, QUEUE_REPLY_KEY);
}
