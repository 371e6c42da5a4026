import { SwitchboardError } from './SwitchboardError.js';

/** The codes a tool call can fail with. */
export type ToolErrorCode = 'tool_failed' | 'tool_timeout' | 'tool_not_allowed' | 'invalid_tool_arguments';

/**
 * A tool call failed. The agent loop never lets it escape: it becomes the observation
 * `{ ok: false, error, retryable }` that the model reads on its next turn. Tools may throw it
 * themselves to say whether trying again can help (`retryable`).
 *
 * @example
 * throw new ToolError('order 42 is locked; try again in a minute', { retryable: true });
 */
export class ToolError extends SwitchboardError {
  override readonly name = 'ToolError';

  constructor(message: string, options: { code?: ToolErrorCode; retryable?: boolean; cause?: unknown } = {}) {
    super(message, { code: options.code ?? 'tool_failed', fault: 'user', retryable: options.retryable ?? false, cause: options.cause });
  }
}
