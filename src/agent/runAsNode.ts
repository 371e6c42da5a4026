import type { AgentEvent } from './AgentEvent.js';
import type { AgentNodeOptions } from './AgentNodeOptions.js';
import type { AgentRunResult } from './AgentRunResult.js';
import type { AgentInput, AgentSession } from './AgentSession.js';
import type { AgentRequest, NodeEmit } from '../graph/AgentNode.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';
import { AgentRunError, type AgentRunErrorCode } from '../errors/AgentRunError.js';

/** A completed run is the node's result; any other status fails the node with the reason. */
export function settleNodeResult<Out>(result: AgentRunResult<Out>): AgentRunResult<Out> {
  if (result.status === 'completed') return result;
  const code: AgentRunErrorCode =
    result.status === 'cancelled' ? 'run_cancelled' : ((result.error?.code as AgentRunErrorCode | undefined) ?? 'agent_failed');
  const message =
    result.error?.message ?? `agent "${result.agent}" was cancelled before it answered`;
  throw new AgentRunError(message, { code, agent: result.agent });
}

/** The agent's input: what the `input` mapper built, or the request. */
async function mapInput<Out>(agent: string, options: AgentNodeOptions<Out>, ctx: WorkflowContext, request: AgentRequest): Promise<AgentInput> {
  if (options.input === undefined) return request;
  const mapped = await options.input(ctx, request);
  if (mapped === null || mapped === undefined) return request;
  if (typeof mapped === 'string' || Array.isArray(mapped)) return mapped;
  throw new AgentDefinitionError(
    `the input mapper of agent node "${agent}" returned ${typeof mapped}; return a string, an array of { role, content } messages, or null to keep the request`,
  );
}

/** Writes what the `output` mapper returned into the state, key by key through `ctx.put`. */
async function mapOutput<Out>(options: AgentNodeOptions<Out>, ctx: WorkflowContext, result: AgentRunResult<Out>): Promise<void> {
  if (options.output === undefined) return;
  const writes: unknown = await options.output(result, ctx);
  if (writes === undefined) return;
  const proto = writes === null || typeof writes !== 'object' ? undefined : (Object.getPrototypeOf(writes) as unknown);
  if (proto !== Object.prototype && proto !== null) {
    const kind = writes === null ? 'null' : Array.isArray(writes) ? 'an array' : typeof writes;
    throw new AgentDefinitionError(
      `the output mapper of agent node "${result.agent}" returned ${kind}; return a plain object of state writes ({ key: value }) or nothing`,
    );
  }
  for (const [key, value] of Object.entries(writes as Record<string, unknown>)) ctx.put(key, value);
}

/**
 * Runs a session as a graph node. Without `emit` it calls `run`, reporting the agent's events (model
 * and tool calls, no text deltas) through `ctx.report` when someone listens to the run; with it,
 * `stream`, forwarding every agent event as a node event. Either way it returns the result. The
 * `input` and `output` mappers of `options`, when given, build the agent's input from the state and
 * write the completed result back to it.
 */
export async function runAsNode<Out>(
  session: AgentSession<Out>,
  ctx: WorkflowContext,
  request: AgentRequest,
  emit?: NodeEmit,
  mappers: AgentNodeOptions<Out> = {},
): Promise<AgentRunResult<Out>> {
  const input = await mapInput(session.agent.name, mappers, ctx, request);
  const options = { signal: ctx.signal, workflow: ctx };
  let result: AgentRunResult<Out> | undefined;
  if (emit === undefined) {
    const onEvent = ctx.reporting ? (event: AgentEvent) => ctx.report({ ...event }) : undefined;
    result = settleNodeResult(await session.run(input, onEvent === undefined ? options : { ...options, onEvent }));
  } else {
    for await (const event of session.stream(input, options)) {
      if (event.type === 'final') result = event.result as AgentRunResult<Out>;
      emit({ ...event });
    }
    // The stream always ends with `final` unless it threw, in which case we never get here.
    result = settleNodeResult(result!);
  }
  await mapOutput(mappers, ctx, result);
  return result;
}
