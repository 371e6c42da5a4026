import { SwitchboardError } from './SwitchboardError.js';

/**
 * An agent, tool, model or handoff policy was configured wrongly: a blank name, a tool whose
 * parameters are not a zod object, a non-positive `maxIterations`, an `allowedTools` callback that
 * names an unknown tool. Thrown where the definition is made; fix it and try again.
 */
export class AgentDefinitionError extends SwitchboardError {
  override readonly name = 'AgentDefinitionError';

  constructor(message: string, cause?: unknown) {
    super(message, { code: 'agent_definition', fault: 'user', retryable: false, cause });
  }
}
