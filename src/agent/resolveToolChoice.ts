import { z } from 'zod';
import type { AllowedTools } from './AgentTurnState.js';
import type { Tool } from './tool.js';
import type { ToolChoice } from '../model/ModelClient.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';

/** The accepted forms of an agent's `toolChoice`. */
export const ToolChoiceOption = z.custom<ToolChoice>(
  (v) =>
    v === 'auto' ||
    v === 'none' ||
    v === 'required' ||
    (typeof v === 'object' && v !== null && Object.keys(v).length === 1 && typeof (v as { name?: unknown }).name === 'string' && (v as { name: string }).name !== ''),
  'toolChoice must be "auto", "none", "required" or { name: "<one of its tools>" }',
);

/**
 * Checks an agent's `toolChoice` against its tools when the agent is built: a named tool must be one
 * of them (and in a fixed `allowedTools` list), and `required` needs at least one tool.
 */
export function validateToolChoice(agent: string, choice: ToolChoice | undefined, tools: ReadonlyMap<string, Tool>, allowed: AllowedTools | undefined): void {
  if (choice === undefined || choice === 'auto' || choice === 'none') return;
  const known = [...tools.keys()].join(', ') || 'none';
  if (choice === 'required') {
    if (tools.size === 0) throw new AgentDefinitionError(`new Agent("${agent}"): toolChoice "required" needs at least one tool; add tools or use "auto"`);
    return;
  }
  if (!tools.has(choice.name)) {
    throw new AgentDefinitionError(`new Agent("${agent}"): toolChoice names "${choice.name}", which is not one of its tools (${known}); add the tool or fix the name`);
  }
  if (Array.isArray(allowed) && !allowed.includes(choice.name)) {
    throw new AgentDefinitionError(`new Agent("${agent}"): toolChoice names "${choice.name}", which its allowedTools (${allowed.join(', ') || 'none'}) never expose`);
  }
}

/**
 * The tool choice sent on one turn. `auto` and `none` hold for every turn; `required` and a named
 * tool force the turns until the run's first tool call, then the model answers with `auto`, so the
 * loop can end. A forced choice the turn's allowed tools cannot meet is a definition error.
 */
export function resolveToolChoice(agent: string, choice: ToolChoice | undefined, allowed: readonly string[], toolCallsSoFar: number): ToolChoice {
  if (choice === undefined || choice === 'auto' || choice === 'none') return choice ?? 'auto';
  if (toolCallsSoFar > 0) return 'auto';
  if (choice === 'required' && allowed.length === 0) {
    throw new AgentDefinitionError(`agent "${agent}": toolChoice is "required" but allowedTools exposes no tool on this turn; expose one or use "auto"`);
  }
  if (typeof choice === 'object' && !allowed.includes(choice.name)) {
    throw new AgentDefinitionError(
      `agent "${agent}": toolChoice names "${choice.name}" but allowedTools exposes only ${allowed.join(', ') || 'no tool'} on this turn; expose it or change toolChoice`,
    );
  }
  return choice;
}
