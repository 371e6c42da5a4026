import { SwitchboardError } from './SwitchboardError.js';

/**
 * A graph or workflow was built or configured wrongly: unknown node, bad route map, reserved or
 * duplicate id, missing start node, invalid `maxSteps`. Thrown by builder calls, `toMachine()` and
 * `run()`; fix the definition and try again.
 */
export class GraphDefinitionError extends SwitchboardError {
  override readonly name = 'GraphDefinitionError';

  constructor(message: string, cause?: unknown) {
    super(message, { code: 'graph_definition', fault: 'user', retryable: false, cause });
  }
}
