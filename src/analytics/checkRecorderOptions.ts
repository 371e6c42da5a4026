import { priceTableProblem } from '../budget/PriceTable.js';
import { AnalyticsError } from '../errors/AnalyticsError.js';
import { describeValue } from '../graph/describeValue.js';

/** Throws the typed error for an option of `where` that is not what it takes. */
export function refuseOption(where: string, field: string, expected: string, value: unknown): never {
  throw new AnalyticsError(`${where}${field}: expected ${expected}; received ${describeValue(value)}`, 'invalid_recorder_options');
}

/**
 * Checks the options object of a transition recorder or tracker (`where` names it, as in
 * `new TransitionRecorder(options)`): an object (or undefined) whose keys are among `known` (any
 * keys when `known` is null), with `costOf` a function and `prices` a price table when given.
 * Returns the options, `{}` for none.
 */
export function checkRecorderOptions<T extends object>(options: T | undefined, where: string, known: readonly string[] | null): T {
  if (options === undefined) return {} as T;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) refuseOption(where, '', `an options object${known === null ? '' : ` { ${known.join(', ')} }`} or nothing`, options);
  const given = options as Record<string, unknown>;
  for (const key of known === null ? [] : Object.keys(given)) {
    if (!known!.includes(key)) refuseOption(where, `.${key}`, `no such option (${known!.join(', ')})`, given[key]);
  }
  if (given['costOf'] !== undefined && typeof given['costOf'] !== 'function') refuseOption(where, '.costOf', 'a function (model, inputTokens, outputTokens) => USD or undefined', given['costOf']);
  if (given['prices'] !== undefined) {
    const problem = priceTableProblem(given['prices']);
    if (problem !== null) refuseOption(where, `.prices${problem.field}`, problem.expected, problem.value);
  }
  return options;
}
