import type { RunStore } from '../../persistence/RunStore.js';
import type { Journal } from '../WorkflowContext.js';

/** The side-effect journal of a run store. */
export function storeJournal(store: RunStore): Journal {
  return {
    get: (runId, step, key) => store.getJournal(runId, step, key),
    put: (runId, step, key, value) => store.putJournal(runId, step, key, value),
  };
}
