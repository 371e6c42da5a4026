import { StepRecord } from './RunStore.js';
import { decodeStored, encodeStored } from './storedJson.js';
import { parseStored } from './storeRows.js';
import { StoreError } from './StoreError.js';
import { formatZodError } from '../errors/formatZodError.js';

/** A step record as stored text (checked against the store's size limit like every stored value). */
export function encodeStepRecord(record: StepRecord, limit: number): string {
  return encodeStored(record, `step record "${record.key}" of run ${record.runId}`, limit);
}

/** A stored step record, read back and checked. */
export function decodeStepRecord(text: string, runId: string): StepRecord {
  const value = parseStored(text, `a step record of run ${runId}`, decodeStored);
  const parsed = StepRecord.safeParse(value);
  if (!parsed.success) throw new StoreError(`a step record of run ${runId} is corrupt: ${formatZodError(parsed.error)}`, { code: 'store_corrupt' });
  return parsed.data;
}
