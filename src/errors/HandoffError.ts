import { SwitchboardError } from './SwitchboardError.js';

/** The codes a subagent handoff can fail with. */
export type HandoffErrorCode = 'handoff_denied' | 'handoff_depth' | 'handoff_failed' | 'handoff_timeout';

/**
 * A handoff to a subagent did not produce an answer: the policy denied it (`allowedTools`,
 * `deniedTools`, `maxDepth`), every attempt failed, or an attempt ran past `timeoutMs`. With
 * `onDenied` / `onError: 'fail'` it becomes the calling agent's `{ ok: false }` tool observation.
 */
export class HandoffError extends SwitchboardError {
  override readonly name = 'HandoffError';
  /** The subagent tool that was called. */
  readonly tool: string;

  constructor(message: string, options: { code: HandoffErrorCode; tool: string; retryable?: boolean; cause?: unknown }) {
    super(message, { code: options.code, fault: 'user', retryable: options.retryable ?? false, cause: options.cause });
    this.tool = options.tool;
  }
}
