import { SwitchboardError } from '../errors/SwitchboardError.js';

/**
 * `ctx.require(key)` found no value under the key: a step read context metadata that no earlier
 * step wrote. Write it first (a step's `updateContext`, or the run's initial `context`).
 */
export class ContextKeyMissingError extends SwitchboardError {
  override readonly name = 'ContextKeyMissingError';
  /** The key that was required. */
  readonly key: string;

  constructor(key: string, present: readonly string[]) {
    const has = present.length === 0 ? 'the context is empty' : `the context has ${present.map((k) => `"${k}"`).join(', ')}`;
    super(`context key "${key}" is required but has no value (${has}); write it in an earlier step's updateContext or in the run's initial context`, {
      code: 'context_missing',
      fault: 'user',
      retryable: false,
    });
    this.key = key;
  }
}
