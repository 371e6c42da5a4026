import { GraphDefinitionError } from 'switchboard/engine';

/** The passages retrieved per round: `limit` (default 3), refused unless a positive whole number. */
export function checkRetrieveLimit(limit = 3): number {
  if (!Number.isInteger(limit) || limit < 1) throw new GraphDefinitionError(`retrieveNode: limit must be a positive integer; received ${String(limit)}`);
  return limit;
}
