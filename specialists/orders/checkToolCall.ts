import type { Tool } from 'switchboard/engine';
import { callSignature, orderIdArg, type ObservationCode, type PlannedToolCall, type ToolObservation } from './ToolLoopState.js';

/** A stage gate: a refusal message when `call` may not run yet given the earlier observations, else null. */
export type ToolGate = (call: { name: string; args: unknown }, observations: readonly ToolObservation[]) => string | null;

/** A call that passed every check, with its parsed arguments, or the refusal to record instead. */
export type CheckedToolCall =
  | { ok: true; tool: Tool; args: unknown }
  | { ok: false; code: ObservationCode; error: string; retryable: boolean };

/**
 * The orders stage gate: `calculate_refund` runs only after a successful `lookup_order` for the
 * same order number.
 */
export const ordersToolGate: ToolGate = ({ name, args }, observations) => {
  if (name !== 'calculate_refund') return null;
  const orderId = orderIdArg(args);
  const looked = observations.some((o) => o.ok && o.name === 'lookup_order' && orderIdArg(o.arguments) === orderId);
  return looked ? null : `calculate_refund needs a successful lookup_order for ${orderId} first; call lookup_order with that order number`;
};

/**
 * Checks a planned call before it runs, in order: the tool is on the allow-list; its arguments
 * match the tool's zod schema; it does not repeat an earlier call with the same arguments that
 * succeeded or failed for good (a retry after a timeout is allowed); the stage gate lets it through.
 */
export function checkToolCall(
  call: PlannedToolCall,
  tools: ReadonlyMap<string, Tool>,
  observations: readonly ToolObservation[],
  gate: ToolGate,
): CheckedToolCall {
  const tool = tools.get(call.name);
  if (tool === undefined) {
    return { ok: false, code: 'tool_not_allowed', retryable: false, error: `tool "${call.name}" is not allowed; allowed tools: ${[...tools.keys()].join(', ')}` };
  }
  const parsed = tool.parameters.safeParse(call.arguments);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
    return {
      ok: false,
      code: 'invalid_tool_arguments',
      retryable: false,
      error: `refused ${call.name}: ${detail}; received ${JSON.stringify(call.arguments) ?? 'nothing'}`,
    };
  }
  const signature = callSignature(call.name, parsed.data);
  const repeated = observations.find((o) => callSignature(o.name, o.arguments) === signature && (o.ok || !o.retryable));
  if (repeated !== undefined) {
    return {
      ok: false,
      code: 'duplicate_tool_call',
      retryable: false,
      error: `duplicate call: ${call.name} with these arguments already ran in round ${repeated.round}; use that result instead of calling again`,
    };
  }
  const refusal = gate({ name: call.name, args: parsed.data }, observations);
  // Retryable: the same call becomes valid once the earlier step has succeeded.
  if (refusal !== null) return { ok: false, code: 'tool_out_of_order', retryable: true, error: refusal };
  return { ok: true, tool, args: parsed.data };
}
