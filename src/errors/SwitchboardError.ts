/**
 * Every machine-readable error code, as a list (for checks at run time). Each names what went
 * wrong, not where it was thrown.
 */
export const SWITCHBOARD_ERROR_CODES = [
  'graph_definition',
  // The command line was wrong: an unknown graph or scenario, a bad option value (UsageError).
  'usage',
  'node_failed',
  'invalid_node_result',
  'route_failed',
  'route_unmatched',
  'node_not_found',
  'run_cancelled',
  'run_waiting',
  'not_json',
  // Shared state writes (StateValidationError).
  'state_invalid',
  'state_not_json',
  'state_undeclared',
  // Typed workflows: a required context key is missing, step types do not fit, a step aborted the run.
  'context_missing',
  'type_incompatible',
  'workflow_aborted',
  // Budgets: a run option out of range, a spent budget that refused a model call, a model with no price while maxCost is set,
  // token counts a model client reported that cannot be counted.
  'invalid_budget',
  'budget_exceeded',
  'price_missing',
  'invalid_usage',
  // Step runners: a step recorded as FAILED was reached again without being reset; a run id whose step records belong to another graph.
  'step_failed',
  'step_records_conflict',
  // A callback the caller handed in (recorder, onEvent, inspect, clock, reason) threw or rejected.
  'callback_failed',
  // A value too large to store (see MAX_STORED_BYTES), or one the store cannot encode.
  'value_too_large',
  'store_encoding',
  'store_config',
  'store_corrupt',
  'store_unavailable',
  // The distributed run queue: SWITCHBOARD_REDIS_URL or its options are wrong, or Redis cannot be reached.
  'queue_config',
  'queue_unavailable',
  'run_not_found',
  'run_conflict',
  'run_not_waiting',
  'run_finished',
  'graph_changed',
  'snapshot_version',
  'invalid_reply',
  // Time travel: a step a stored run does not have; a fork the run's history cannot make.
  'step_out_of_range',
  'fork_unsupported',
  // Breakpoints: one names no node of the graph, or the run has no store to pause in.
  'invalid_breakpoint',
  'invalid_input',
  'invalid_tasks',
  // A run's chosen model: a name not offered (the message lists the known ones), or no choice to make (ModelChoiceError).
  'unknown_model',
  'model_not_offered',
  // Transition analytics: a record that is not a TransitionRecord, a chain that never ends, a recorder's bad options, a transitions file that cannot be read.
  'invalid_transition_record',
  'chain_not_absorbing',
  'invalid_recorder_options',
  'unreadable_file',
  // Coordinator failure policy: a specialist failed (onFailure 'fail'), too few completed, a task timed out.
  'specialist_failed',
  'too_few_completed',
  'task_timeout',
  'internal',
  // Tracing and inspection.
  'inspector_unavailable',
  // Agents, tools and models.
  'agent_definition',
  'session_busy',
  'max_iterations',
  'agent_failed',
  'model_error',
  'rate_limited',
  'model_retries_exhausted',
  'timeout',
  'structured_output_invalid',
  'tool_failed',
  'tool_timeout',
  'tool_not_allowed',
  'invalid_tool_arguments',
  'handoff_denied',
  'handoff_depth',
  'handoff_failed',
  'handoff_timeout',
  'script_mismatch',
  // The workbench server.
  'server_config',
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'unsupported_media_type',
  'misdirected_request',
  // Legs still running when a workbench's wait for them gave up (DrainTimeoutError).
  'drain_timeout',
] as const;

/** Machine-readable error codes. Each names what went wrong, not where it was thrown. */
export type SwitchboardErrorCode = (typeof SWITCHBOARD_ERROR_CODES)[number];

/** Who is at fault: the caller's code or input, Switchboard itself, or a model. */
export type ErrorFault = 'user' | 'system' | 'model';

/** Options shared by every Switchboard error. */
export interface SwitchboardErrorOptions {
  code: SwitchboardErrorCode;
  fault?: ErrorFault;
  retryable?: boolean;
  cause?: unknown;
}

/**
 * The base of every error Switchboard raises or reports in a run. Messages say what was expected,
 * what was received and how to fix it; they never carry secrets or whole prompts.
 */
export class SwitchboardError extends Error {
  override readonly name: string = 'SwitchboardError';
  readonly code: SwitchboardErrorCode;
  readonly fault: ErrorFault;
  readonly retryable: boolean;

  constructor(message: string, options: SwitchboardErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.fault = options.fault ?? 'user';
    this.retryable = options.retryable ?? false;
  }

  /** A plain JSON description, safe to store and send. */
  toJSON(): SerializedError {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/** The JSON form of an error as it appears in machine context and events. */
export interface SerializedError {
  name: string;
  code: string;
  message: string;
}

/** Serializes any thrown value to {name, code, message}. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof SwitchboardError) return error.toJSON();
  if (error instanceof Error) {
    try {
      const code = (error as { code?: unknown }).code;
      return { name: String(error.name), code: typeof code === 'string' ? code : 'error', message: describeThrown(error) };
    } catch {
      return { name: 'Error', code: 'error', message: describeThrown(error) };
    }
  }
  return { name: 'Error', code: 'error', message: describeThrown(error) };
}

/** A short human description of a thrown value, whatever its type. */
export function describeThrown(error: unknown): string {
  // Whatever was thrown may have getters that throw or no prototype at all: this never throws.
  try {
    if (error instanceof Error) return String(error.message);
    if (typeof error === 'string') return error;
    if (typeof error === 'symbol' || typeof error === 'bigint') return error.toString();
    return JSON.stringify(error) ?? String(error);
  } catch {
    try {
      return String(error);
    } catch {
      return error instanceof Error ? 'an Error whose message cannot be read' : `a thrown ${typeof error} that cannot be described`;
    }
  }
}
