import { wholeNumber } from './wholeNumber.js';

/** The fewest and most tool rounds a run may be given. */
export const TOOL_BUDGET_RANGE = { min: 1, max: 20 } as const;

/**
 * Tool rounds a run may use (`--tool-budget`, request metadata `toolBudget`, a scenario's
 * `toolBudget`): a whole number from 1 to 20, as a number or in plain decimal digits (`0x10`,
 * `1e15`, `1.5` and `-1` are refused).
 */
export const ToolBudget = wholeNumber(TOOL_BUDGET_RANGE.min, TOOL_BUDGET_RANGE.max, 'tool budget');
