import type { AgentRunResult } from './AgentRunResult.js';
import type { AgentRequest } from '../graph/AgentNode.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import type { ModelMessage } from '../model/ModelMessage.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';

/** What an `input` mapper may return: the user message, messages to append, or nothing (use the request). */
export type AgentNodeInput = string | readonly ModelMessage[] | null | undefined;

/** State writes an `output` mapper returns: each key is written with `ctx.put(key, value)`. */
export type AgentNodeWrites = Record<string, unknown>;

/**
 * How an agent node reads from and writes to the run's shared state. Without them the node behaves
 * as always: the agent gets the request's input and the next node gets the agent's answer.
 *
 * @example
 * new AgentNode(reviewer, {
 *   input: (ctx) => `Review this draft:\n${ctx.get('draft')}`,
 *   output: (result) => ({ verdict: result.output }),
 * });
 */
export interface AgentNodeOptions<Out = unknown> {
  /**
   * Builds the agent's input from the state and the request (e.g. `ctx.get('draft')`). Returning
   * null or undefined keeps the request's input.
   */
  input?: (ctx: WorkflowContext, request: AgentRequest) => AgentNodeInput | Promise<AgentNodeInput>;
  /**
   * Maps a completed result to state writes (`{ key: value }`, each written with `ctx.put`, so
   * state schemas apply). The node's result, and so the handoff to the next node, is unchanged.
   */
  output?: (result: AgentRunResult<Out>, ctx: WorkflowContext) => AgentNodeWrites | void | Promise<AgentNodeWrites | void>;
}

/** Checks the options of an agent node where it is built; `where` names the constructor in the message. */
export function checkAgentNodeOptions<Out>(where: string, options: AgentNodeOptions<Out>): AgentNodeOptions<Out> {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new AgentDefinitionError(`${where}: options must be an object { input?, output? }`);
  }
  const unknown = Object.keys(options).filter((key) => key !== 'input' && key !== 'output');
  if (unknown.length > 0) {
    throw new AgentDefinitionError(`${where}: unknown option ${unknown.map((k) => `"${k}"`).join(', ')}; an agent node takes input and output mappers (toolChoice and outputSchema belong to the Agent)`);
  }
  for (const key of ['input', 'output'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function') {
      throw new AgentDefinitionError(`${where}: ${key} must be a function; received ${typeof options[key]}`);
    }
  }
  return { ...options };
}
