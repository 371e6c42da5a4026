import { SwitchboardError } from '../errors/SwitchboardError.js';

/** A typed step's output does not fit the next typed step's input (`assertTypeCompatible`). */
export class TypeIncompatibleError extends SwitchboardError {
  override readonly name = 'TypeIncompatibleError';
  /** The step whose output does not fit. */
  readonly from: string;
  /** The step that expects something else. */
  readonly to: string;

  constructor(from: string, to: string, outputs: string, expects: string) {
    super(`step '${from}' outputs ${outputs} but step '${to}' expects ${expects}; change one of the schemas or put a converting step between them`, {
      code: 'type_incompatible',
      fault: 'user',
      retryable: false,
    });
    this.from = from;
    this.to = to;
  }
}
