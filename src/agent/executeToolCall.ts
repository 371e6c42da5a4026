import { AbortedError, linkSignals, raceAbort } from './raceAbort.js';
import type { Tool, ToolContext } from './tool.js';
import type { ToolResult } from './ToolResult.js';
import type { ModelToolCall } from '../model/ModelMessage.js';
import { ToolError } from '../errors/ToolError.js';
import { SwitchboardError, describeThrown } from '../errors/SwitchboardError.js';
import { formatZodError } from '../errors/formatZodError.js';

/** A call checked before running: either ready to run with parsed arguments, or already failed. */
export type PreparedToolCall =
  | { ready: true; tool: Tool; args: unknown }
  | { ready: false; result: ToolResult; args: unknown; malformedJson: boolean };

function failure(call: ModelToolCall, error: ToolError): ToolResult {
  return { callId: call.id, name: call.name, ok: false, error: error.message, code: error.code, retryable: error.retryable };
}

/**
 * Checks a tool call: the tool exists and is allowed on this turn, its arguments are JSON, and they
 * match the tool's zod schema. Every problem becomes a failed result the model can act on.
 */
export function prepareToolCall(call: ModelToolCall, tools: ReadonlyMap<string, Tool>, allowed: readonly string[]): PreparedToolCall {
  let args: unknown;
  let malformed: string | null = null;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch (error) {
    args = call.arguments;
    malformed = describeThrown(error);
  }
  const fail = (error: ToolError, malformedJson = false): PreparedToolCall => ({ ready: false, result: failure(call, error), args, malformedJson });
  const tool = tools.get(call.name);
  const offered = allowed.length === 0 ? 'no tools are available on this turn' : `available on this turn: ${allowed.join(', ')}`;
  if (tool === undefined) {
    return fail(new ToolError(`there is no tool "${call.name}"; ${offered}`, { code: 'tool_not_allowed', retryable: true }));
  }
  if (!allowed.includes(call.name)) {
    return fail(
      new ToolError(`tool "${call.name}" is not available on this turn (${offered}); complete the earlier steps first`, {
        code: 'tool_not_allowed',
        retryable: true,
      }),
    );
  }
  if (malformed !== null) {
    return fail(
      new ToolError(
        `the arguments for tool "${call.name}" are not valid JSON (${malformed}); call it again with a JSON object that matches its schema`,
        { code: 'invalid_tool_arguments', retryable: true },
      ),
      true,
    );
  }
  const parsed = tool.parameters.safeParse(args);
  if (!parsed.success) {
    return fail(
      new ToolError(`the arguments for tool "${call.name}" do not match its schema: ${formatZodError(parsed.error)}; fix them and call again`, {
        code: 'invalid_tool_arguments',
        retryable: true,
      }),
    );
  }
  return { ready: true, tool, args: parsed.data };
}

/** Checks that a tool's output can be sent to the model as JSON. */
function jsonOutput(name: string, output: unknown): unknown {
  if (output === undefined) return null;
  try {
    JSON.stringify(output);
  } catch (error) {
    throw new ToolError(`tool "${name}" returned output that is not JSON (${describeThrown(error)}); return plain JSON values`);
  }
  return output;
}

/**
 * Runs a prepared tool call with its timeout and the run's signal. A throw, a timeout or an abort
 * becomes a failed result; nothing escapes.
 */
export async function runToolCall(
  call: ModelToolCall,
  tool: Tool,
  args: unknown,
  context: Omit<ToolContext, 'signal' | 'callId'> & { signal: AbortSignal | undefined },
): Promise<ToolResult> {
  const controller = linkSignals(context.signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (tool.timeoutMs !== undefined) {
    const ms = tool.timeoutMs;
    timer = setTimeout(
      () => controller.abort(new ToolError(`tool "${tool.name}" timed out after ${ms} ms; try again, or answer without it`, { code: 'tool_timeout', retryable: true })),
      ms,
    );
  }
  try {
    const journal = tool.sideEffects ? context.workflow : undefined;
    const execute = (idempotencyKey?: string) =>
      tool.execute(args as never, { ...context, signal: controller.signal, callId: call.id, ...(idempotencyKey ? { idempotencyKey } : {}) });
    // Side effects go through the run's journal: a repeated step replays the recorded output.
    const running = Promise.resolve().then(() =>
      journal === undefined ? execute() : journal.once(`tool:${tool.name}`, async (key) => jsonOutput(tool.name, await execute(key))),
    );
    const output = await raceAbort(running, controller.signal);
    return { callId: call.id, name: tool.name, ok: true, output: jsonOutput(tool.name, output) };
  } catch (thrown) {
    const error = thrown instanceof AbortedError ? thrown.reason : controller.signal.aborted ? controller.signal.reason : thrown;
    if (error instanceof ToolError) return failure(call, error);
    if (controller.signal.aborted && context.signal?.aborted) {
      return failure(call, new ToolError(`tool "${tool.name}" was cancelled because the run was aborted`, { code: 'tool_failed' }));
    }
    // Keep the code of a Switchboard error (e.g. `handoff_denied`) so the observation says what happened.
    return {
      callId: call.id,
      name: call.name,
      ok: false,
      error: `tool "${tool.name}" failed: ${describeThrown(error)}`,
      code: error instanceof SwitchboardError ? error.code : 'tool_failed',
      retryable: error instanceof SwitchboardError ? error.retryable : false,
    };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    controller.abort();
  }
}
