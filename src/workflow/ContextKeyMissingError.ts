import { SwitchboardError } from '../errors/SwitchboardError.js';

/**
 * `ctx.require(key)` found no value under the key: a step read context metadata that no earlier
 * step wrote. Write it first (a step's `updateContext`, or the run's initial `context`).
 */
export class ContextKeyMissingError extends SwitchboardError {
  override readonly name = 'ContextKeyMissingError';
  /** The key that was required. */
  readonly key: string;
  /** The step that required it (the context's current step), or null outside a step. */
  readonly step: string | null;

  constructor(key: string, present: readonly string[], step: string | null = null) {
    const has = present.length === 0 ? 'the context is empty' : `the context has ${present.map((k) => `"${k}"`).join(', ')}`;
    const by = step === null ? '' : ` by step "${step}"`;
    super(`context key "${key}" is required${by} but has no value (${has}); write it in an earlier step's updateContext or in the run's initial context`, {
      code: 'context_missing',
      fault: 'user',
      retryable: false,
    });
    this.key = key;
    this.step = step;
  }
}
