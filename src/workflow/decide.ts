import { WorkflowExecutionError } from '../errors/WorkflowExecutionError.js';
import type { AgentContext } from './AgentContext.js';
import type { NodeRuntime } from './compileWorkflow.js';

/** The name a decision's model call goes by (an `OfflineModel` rule under this name answers offline). */
export const DECISION_AGENT = 'workflow-decision';

function textOf(input: unknown): string {
  return typeof input === 'string' ? input : (JSON.stringify(input) ?? String(input));
}

/** Reads the option from the model's answer: JSON `{ "choice": name }`, or text that is (or names exactly one) option. */
export function readChoice(text: string, options: readonly string[]): string | null {
  const trimmed = text.trim();
  try {
    const parsed = JSON.parse(trimmed) as { choice?: unknown };
    if (parsed !== null && typeof parsed === 'object' && typeof parsed.choice === 'string' && options.includes(parsed.choice)) return parsed.choice;
  } catch {
    // Not JSON: read it as text.
  }
  if (options.includes(trimmed)) return trimmed;
  const named = options.filter((o) => new RegExp(`\\b${o.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(trimmed));
  return named.length === 1 ? named[0]! : null;
}

/**
 * Asks the model to pick one option by name. The answer is constrained to the names (a JSON
 * schema whose `choice` is an enum of them); an answer that names none of them fails the step.
 */
export async function decide(rt: Extract<NodeRuntime, { type: 'decision' }>, _ctx: AgentContext, input: unknown, signal: AbortSignal | undefined): Promise<string> {
  const prompt = rt.prompt ?? 'Pick the option that fits the input best.';
  const response = await rt.model.complete({
    messages: [
      { role: 'system', content: `${prompt}\nAnswer with JSON {"choice": one of ${rt.options.map((o) => JSON.stringify(o)).join(', ')}}.` },
      { role: 'user', content: textOf(input) },
    ],
    tools: [],
    responseFormat: {
      type: 'json_schema',
      name: 'decision',
      schema: { type: 'object', properties: { choice: { type: 'string', enum: [...rt.options] } }, required: ['choice'], additionalProperties: false },
      strict: true,
    },
    agent: DECISION_AGENT,
    ...(signal === undefined ? {} : { signal }),
  });
  const choice = readChoice(response.text ?? '', rt.options);
  if (choice === null) {
    throw new WorkflowExecutionError(`decision: the model ${rt.model.name} answered ${JSON.stringify((response.text ?? '').slice(0, 80))}, which names none of the options (${rt.options.join(', ')}); its answer must be {"choice": <option>}`, {
      code: 'invalid_node_result',
    });
  }
  return choice;
}
