import { GraphDefinitionError } from 'switchboard/engine';

/** Refuses a tool budget that is not a whole number of rounds (0 or more); `where` names the caller in the message. */
export function checkToolBudget(where: string, budget: number | undefined): void {
  if (budget !== undefined && (!Number.isInteger(budget) || budget < 0)) {
    throw new GraphDefinitionError(`${where}: budget must be a whole number of tool rounds (0 or more); received ${String(budget)}`);
  }
}
