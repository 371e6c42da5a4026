import { SwitchboardError } from './SwitchboardError.js';

/** The codes an agent run can end with when it is used where an answer is required. */
export type AgentRunErrorCode =
  | 'session_busy'
  | 'max_iterations'
  | 'agent_failed'
  | 'invalid_tool_arguments'
  | 'structured_output_invalid'
  | 'run_cancelled';

/**
 * An agent run did not produce a final answer where one was required: the session was already
 * running, the loop reached `maxIterations`, the model could not repair malformed tool arguments
 * or an answer that failed its `outputSchema` (`structured_output_invalid`), or the run was cancelled. `session.run()` reports these as the result's `status`; graph node
 * wrappers throw this error so the graph run ends `failed` with the reason.
 */
export class AgentRunError extends SwitchboardError {
  override readonly name = 'AgentRunError';
  /** The agent whose run ended this way. */
  readonly agent: string;

  constructor(message: string, options: { code: AgentRunErrorCode; agent: string; retryable?: boolean; cause?: unknown }) {
    super(message, { code: options.code, fault: options.code === 'invalid_tool_arguments' || options.code === 'structured_output_invalid' ? 'model' : 'user', retryable: options.retryable ?? false, cause: options.cause });
    this.agent = options.agent;
  }
}
