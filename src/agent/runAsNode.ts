import type { AgentEvent } from './AgentEvent.js';
import type { AgentRunResult } from './AgentRunResult.js';
import type { AgentSession } from './AgentSession.js';
import type { AgentRequest, NodeEmit } from '../graph/AgentNode.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import { AgentRunError, type AgentRunErrorCode } from '../errors/AgentRunError.js';

/** A completed run is the node's result; any other status fails the node with the reason. */
export function settleNodeResult(result: AgentRunResult): AgentRunResult {
  if (result.status === 'completed') return result;
  const code: AgentRunErrorCode =
    result.status === 'cancelled' ? 'run_cancelled' : ((result.error?.code as AgentRunErrorCode | undefined) ?? 'agent_failed');
  const message =
    result.error?.message ?? `agent "${result.agent}" was cancelled before it answered`;
  throw new AgentRunError(message, { code, agent: result.agent });
}

/**
 * Runs a session as a graph node. Without `emit` it calls `run`, reporting the agent's events (model
 * and tool calls, no text deltas) through `ctx.report` when someone listens to the run; with it,
 * `stream`, forwarding every agent event as a node event. Either way it returns the result.
 */
export async function runAsNode(session: AgentSession, ctx: WorkflowContext, request: AgentRequest, emit?: NodeEmit): Promise<AgentRunResult> {
  const options = { signal: ctx.signal, workflow: ctx };
  if (emit === undefined) {
    const onEvent = ctx.reporting ? (event: AgentEvent) => ctx.report({ ...event }) : undefined;
    return settleNodeResult(await session.run(request, onEvent === undefined ? options : { ...options, onEvent }));
  }
  let result: AgentRunResult | undefined;
  for await (const event of session.stream(request, options)) {
    if (event.type === 'final') result = event.result;
    emit({ ...event });
  }
  // The stream always ends with `final` unless it threw, in which case we never get here.
  return settleNodeResult(result!);
}
