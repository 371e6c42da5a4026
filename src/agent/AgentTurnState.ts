import type { Tool } from './tool.js';
import type { ToolResult } from './ToolResult.js';
import type { ModelMessage } from '../model/ModelMessage.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';

/** What `allowedTools(state)` receives before each model turn. */
export interface AgentTurnState {
  agent: string;
  /** The turn about to be made, 1-based. */
  iteration: number;
  /** Every tool result of the session so far, oldest first. */
  toolResults: readonly ToolResult[];
  /** Names of the tools that have succeeded at least once in the session. */
  succeeded: readonly string[];
  /** The conversation so far. */
  messages: readonly ModelMessage[];
  /** The graph context when the agent runs as a graph node. */
  workflow: WorkflowContext | undefined;
}

/** Chooses the tools exposed on a turn: a fixed list of names, or a function of the turn state. */
export type AllowedTools = readonly string[] | ((state: AgentTurnState) => readonly string[]);

/** The tool names exposed on this turn; an unknown name is a definition error. */
export function resolveAllowedTools(
  agent: string,
  tools: ReadonlyMap<string, Tool>,
  allowed: AllowedTools | undefined,
  state: AgentTurnState,
): string[] {
  if (allowed === undefined) return [...tools.keys()];
  const names = typeof allowed === 'function' ? allowed(state) : allowed;
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) {
    throw new AgentDefinitionError(`allowedTools of agent "${agent}" must return an array of tool names; received ${typeof names}`);
  }
  for (const name of names) {
    if (!tools.has(name)) {
      throw new AgentDefinitionError(
        `allowedTools of agent "${agent}" names "${name}", which is not one of its tools (${[...tools.keys()].join(', ') || 'none'}); add the tool or fix the name`,
      );
    }
  }
  return [...new Set(names)];
}
