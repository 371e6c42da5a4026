import { SwitchboardError } from './SwitchboardError.js';

/** Why a state write was refused. */
export type StateValidationCode = 'state_invalid' | 'state_not_json' | 'state_undeclared';

/**
 * A value written to the shared state (with `ctx.put`, `ctx.state.set` or `RunOptions.state`) was
 * refused: it fails its key's schema (`state_invalid`), it is not JSON (`state_not_json`: a Date,
 * Map, Set, BigInt, function, symbol, class instance, non-finite number, cycle, or `undefined` in
 * an array), or the graph declares its state and not this key (`state_undeclared`). Raised at the
 * write, in memory exactly as in a stored run, so the run fails at the node that wrote it.
 */
export class StateValidationError extends SwitchboardError {
  override readonly name = 'StateValidationError';
  /** The state key written. */
  readonly key: string;
  /** The node that wrote it (null for the run's initial state). */
  readonly nodeId: string | null;

  constructor(message: string, options: { code: StateValidationCode; key: string; nodeId: string | null; cause?: unknown }) {
    super(message, { code: options.code, fault: 'user', retryable: false, cause: options.cause });
    this.key = options.key;
    this.nodeId = options.nodeId;
  }
}
