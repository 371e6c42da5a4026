import type { z } from 'zod';
import { formatZodError } from '../errors/formatZodError.js';
import { InputError } from './InputError.js';

/**
 * Parses one input with its schema or throws an `InputError` naming it (when `name` is given):
 * `parseInput(ToolBudget, '1e15', '--tool-budget')` throws "--tool-budget: tool budget must be a
 * whole number from 1 to 20 in plain decimal digits; received "1e15"".
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, name?: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InputError(`${name === undefined ? '' : `${name}: `}${formatZodError(parsed.error)}`);
  return parsed.data;
}
