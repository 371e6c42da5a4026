import { GraphDefinitionError, ToolError, type AgentNode, type Clock, type Tool, type WorkflowContext } from 'switchboard/engine';
import { checkToolCall, ordersToolGate, type ToolGate } from './checkToolCall.js';
import { createOrderTools } from './createOrderTools.js';
import { PlannedToolCall, toolObservationsOf, toolRoundsOf, type ToolObservation } from './ToolLoopState.js';
import { activeFaults } from '../shared/Fault.js';
import { specialistNode } from '../shared/specialistNode.js';

/** Options for {@link toolExecuteNode}. */
export interface ToolExecuteNodeOptions {
  /** The allow-list: only these tools run (default: `lookup_order` and `calculate_refund`). */
  tools?: readonly Tool[];
  /** The stage gate (default {@link ordersToolGate}). */
  gate?: ToolGate;
  /** Time the default order tools measure delivery age against. */
  clock?: Clock;
  /** A call still running after this long fails with `tool_timeout` (default 10 000 ms, or the tool's own `timeoutMs`). */
  timeoutMs?: number;
  /** How long the call hung by the `tool_timeout` fault waits before timing out (default 50 ms). */
  faultTimeoutMs?: number;
}

/** Runs a checked call under a timeout and the node's signal; every outcome is an observation. */
async function runCall(
  ctx: WorkflowContext,
  call: PlannedToolCall,
  tool: Tool,
  args: unknown,
  round: number,
  timeoutMs: number,
  hang: boolean,
): Promise<ToolObservation> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(new ToolError(`tool "${tool.name}" was cancelled because the run was aborted`));
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    const note = hang ? ' (fault injected: tool_timeout)' : '';
    controller.abort(new ToolError(`tool "${tool.name}" timed out after ${timeoutMs} ms${note}; try again`, { code: 'tool_timeout', retryable: true }));
  }, timeoutMs);
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  const base = { round, callId: call.callId, name: tool.name, arguments: args };
  try {
    const context = { signal: controller.signal, agent: 'tool_execute', callId: call.callId, iteration: round, depth: 0, workflow: ctx, emit: () => {} };
    const execute = (key?: string) => (hang ? aborted : tool.execute(args as never, key === undefined ? context : { ...context, idempotencyKey: key }));
    // Side-effecting tools go through the run journal, as they do in the agent loop.
    const running = Promise.resolve().then(() => (tool.sideEffects ? ctx.once(`tool:${tool.name}`, execute) : execute()));
    const output: unknown = await Promise.race([running, aborted]);
    return { ...base, ok: true, output: JSON.parse(JSON.stringify(output ?? null)) as unknown };
  } catch (error) {
    const known = error instanceof ToolError;
    return {
      ...base,
      ok: false,
      code: known && error.code === 'tool_timeout' ? 'tool_timeout' : 'tool_failed',
      error: known ? error.message : `tool "${tool.name}" failed: ${error instanceof Error ? error.message : String(error)}`,
      retryable: known ? error.retryable : false,
    };
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
    controller.abort();
  }
}

/**
 * The `tool_execute` node: runs exactly the one call `tool_plan` put in `pendingToolCall`,
 * enforcing the allow-list, the tools' zod arguments (a malformed order number is refused),
 * duplicate detection and the stage gate (see `checkToolCall`). A refusal, a thrown error or a
 * timeout becomes a failed observation; nothing is thrown, except when no call was planned (a
 * wiring mistake).
 *
 * With the `tool_timeout` fault in `faults`, the first call of the run hangs until it times out.
 *
 * Reads `pendingToolCall`, `toolObservations`, `toolRounds`, `faults`. Appends a
 * `ToolObservation` to `toolObservations`, increments `toolRounds` and sets `pendingToolCall` to
 * null. Returns `{ outputText: null, toolCalls: [call] }` (the next node gets the same request);
 * streams `tool.call` and `tool.result` events.
 *
 * @example
 * graph.addNode('tool_execute', toolExecuteNode()).addEdge('tool_execute', 'tool_plan');
 */
export function toolExecuteNode(options: ToolExecuteNodeOptions = {}): AgentNode {
  const list = options.tools ?? Object.values(createOrderTools(options.clock === undefined ? {} : { clock: options.clock }));
  const tools = new Map(list.map((t) => [t.name, t]));
  const gate = options.gate ?? ordersToolGate;
  return specialistNode('tool_execute', async (ctx, _request, emit) => {
    const planned = PlannedToolCall.safeParse(ctx.get('pendingToolCall'));
    if (!planned.success || planned.data === null) {
      throw new GraphDefinitionError('tool_execute ran with no planned call in state "pendingToolCall"; route to tool_execute only when tool_plan decided "call"');
    }
    const call = planned.data;
    const observations = toolObservationsOf(ctx);
    const round = toolRoundsOf(ctx) + 1;
    emit({ type: 'tool.call', round, callId: call.callId, name: call.name, arguments: call.arguments });
    const checked = checkToolCall(call, tools, observations, gate);
    let observation: ToolObservation;
    if (!checked.ok) {
      const { code, error, retryable } = checked;
      observation = { round, callId: call.callId, name: call.name, arguments: call.arguments, ok: false, code, error, retryable };
    } else {
      const hang = activeFaults(ctx).includes('tool_timeout') && !observations.some((o) => !o.ok && o.code === 'tool_timeout');
      const timeoutMs = hang ? (options.faultTimeoutMs ?? 50) : (checked.tool.timeoutMs ?? options.timeoutMs ?? 10_000);
      observation = await runCall(ctx, call, checked.tool, checked.args, round, timeoutMs, hang);
    }
    ctx.put('toolObservations', [...observations, observation]);
    ctx.put('toolRounds', round);
    ctx.put('pendingToolCall', null);
    emit({ type: 'tool.result', round, observation });
    return { outputText: null, toolCalls: [call] };
  });
}
