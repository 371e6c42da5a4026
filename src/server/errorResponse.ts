import type { Context } from 'hono';
import { SwitchboardError } from '../errors/SwitchboardError.js';
import { ServerError } from './ServerError.js';
import { errorJson } from '../json/ErrorJson.js';

const RUN_STATE_STATUS: Record<string, number> = {
  // An input refused before anything ran (an InputError): the caller's to fix, as a body that does not parse.
  invalid_input: 400,
  // A chosen model that is not offered, or no model choice to make (a ModelChoiceError).
  unknown_model: 400,
  model_not_offered: 400,
  run_not_found: 404,
  run_not_waiting: 409,
  run_finished: 409,
  run_conflict: 409,
  graph_changed: 409,
  snapshot_version: 409,
  invalid_reply: 400,
  step_out_of_range: 400,
  invalid_breakpoint: 400,
  fork_unsupported: 409,
  state_invalid: 400,
  state_undeclared: 400,
  state_not_json: 400,
  graph_definition: 400,
  // Runs that went round a loop and have not ended (yet): the stored runs' state, not the server's fault.
  chain_not_absorbing: 409,
};

/** The HTTP status for an error: its own for server errors, by code for run and input errors, else 500. */
export function statusOf(error: unknown): number {
  if (error instanceof ServerError) return error.status;
  if (error instanceof SwitchboardError) return RUN_STATE_STATUS[error.code] ?? 500;
  return 500;
}

/**
 * The JSON answer for an error, an `ErrorJson`: `{ schemaVersion, error: { code, message } }`. Switchboard errors keep their
 * message (they never carry secrets); anything else is reported as `internal` without details,
 * which go to `log` instead.
 */
export function errorResponse(c: Context, error: unknown, log: (line: string) => void): Response {
  const status = statusOf(error);
  if (error instanceof SwitchboardError && status < 500) {
    return c.json(errorJson(error.code, error.message, error.retryable ? { retryable: true } : {}), status as 400);
  }
  log(`switchboard serve: ${c.req.method} ${c.req.path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  const message = error instanceof SwitchboardError ? error.message : 'internal error; see the server log';
  return c.json(errorJson(error instanceof SwitchboardError ? error.code : 'internal', message), status as 500);
}
