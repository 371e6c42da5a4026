import { beforeModelCall, recordModelUsage } from '../budget/BudgetMeter.js';
import { z } from 'zod';
import type { ModelClient, ModelRequest, ModelStreamEvent, ToolChoice } from './ModelClient.js';
import type { ModelMessage, ModelResponse, ModelToolCall } from './ModelMessage.js';
import { OfflineReply, type OfflineConversation, type OfflineRule, type OfflineToolResult } from './OfflineRule.js';
import { splitTokens } from './splitTokens.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';
import { formatZodError } from '../errors/formatZodError.js';

/** Options for `new OfflineModel()`. */
export interface OfflineModelOptions {
  /** Rules by agent name, used when the agent itself declares no `offline` rule. */
  rules?: Record<string, OfflineRule>;
}

const Observation = z.object({ ok: z.boolean(), output: z.unknown().optional(), error: z.string().optional() });

/** The parsed tool results after the last user message. */
function toolResultsSinceInput(messages: readonly ModelMessage[]): { input: string; toolResults: OfflineToolResult[]; turn: number } {
  let input = '';
  let start = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'user') {
      input = message.content;
      start = i + 1;
      break;
    }
  }
  const toolResults: OfflineToolResult[] = [];
  let turn = 0;
  for (const message of messages.slice(start)) {
    if (message.role === 'assistant') turn += 1;
    if (message.role !== 'tool') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(message.content);
    } catch {
      parsed = { ok: true, output: message.content };
    }
    const observation = Observation.safeParse(parsed);
    toolResults.push(observation.success ? { name: message.name, ...observation.data } : { name: message.name, ok: true, output: parsed });
  }
  return { input, toolResults, turn };
}

/**
 * The rule used when an agent declares none: call the tool a forced `toolChoice` names (or the
 * first allowed one, with no arguments), else summarize tool results, else echo the input.
 */
const defaultRule: OfflineRule = ({ agent, input, toolResults, toolChoice, allowedTools }) => {
  const forced = typeof toolChoice === 'object' ? toolChoice.name : toolChoice === 'required' ? allowedTools[0] : undefined;
  if (forced !== undefined) return { toolCalls: [{ name: forced, arguments: {} }] };
  if (toolResults.length === 0) return `[offline ${agent}] ${input}`;
  return toolResults
    .map((r) => (r.ok ? `${r.name}: ${JSON.stringify(r.output)}` : `${r.name} failed: ${r.error ?? 'unknown error'}`))
    .join('\n');
};

/** The JSON text of a rule's `{ json }` reply. */
function jsonText(agent: string, value: unknown): string {
  try {
    const text = JSON.stringify(value);
    if (typeof text === 'string') return text;
  } catch {
    // Reported below with the fix.
  }
  throw new AgentDefinitionError(`the offline rule of agent "${agent}" returned { json } with a value that is not JSON; return plain objects, arrays, strings, numbers, booleans or null`);
}

/** A rule's reply must obey the turn's `toolChoice`, as a real server's would. */
function checkToolChoice(agent: string, choice: ToolChoice, calls: readonly ModelToolCall[]): void {
  const who = `the offline rule of agent "${agent}"`;
  if (choice === 'none' && calls.length > 0) {
    throw new AgentDefinitionError(`${who} called ${calls.map((c) => c.name).join(', ')} although toolChoice is "none"; answer with text on this turn`);
  }
  if (choice === 'required' && calls.length === 0) {
    throw new AgentDefinitionError(`${who} answered without a tool call although toolChoice is "required"; return { toolCalls: [...] } on this turn`);
  }
  if (typeof choice === 'object') {
    const other = calls.find((c) => c.name !== choice.name);
    if (calls.length === 0 || other !== undefined) {
      throw new AgentDefinitionError(
        `${who} ${other === undefined ? 'answered without a tool call' : `called "${other.name}"`} although toolChoice is { name: "${choice.name}" }; ` +
          `return { toolCalls: [{ name: "${choice.name}", arguments }] } on this turn`,
      );
    }
  }
}

/**
 * The embedded model used when no API key is configured. It makes no network call: each agent's
 * `offline` rule (or a rule given here by agent name, or a default that echoes the input and
 * summarizes tool results) decides the reply, so runs are deterministic. It honours the request
 * like a server would: the rule sees `toolChoice` and `responseFormat`, a reply against the tool
 * choice is an `AgentDefinitionError`, and a `{ json }` reply is sent as JSON text (checked by the
 * agent against its `outputSchema`). `usage` is reported as zero and `rawResponse.offline` is `true`.
 *
 * @example
 * const agent = new Agent({ name: 'greeter', instructions: 'Greet.', model: new OfflineModel(),
 *   offline: ({ input }) => `Hello, ${input}!` });
 */
export class OfflineModel implements ModelClient {
  readonly name = 'offline';
  readonly #rules: Record<string, OfflineRule>;

  constructor(options: OfflineModelOptions = {}) {
    const rules = options.rules ?? {};
    for (const [agent, rule] of Object.entries(rules)) {
      if (typeof rule !== 'function') {
        throw new AgentDefinitionError(`OfflineModel rules["${agent}"] must be a function (conversation) => reply; received ${typeof rule}`);
      }
    }
    this.#rules = { ...rules };
  }

  /** Answers from the agent's rule. */
  async complete(request: ModelRequest): Promise<ModelResponse> {
    beforeModelCall(this.name, request.signal);
    const response = this.#answer(request);
    recordModelUsage(this.name, response.usage);
    return response;
  }

  /** Answers from the agent's rule, streaming the text word by word. */
  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    beforeModelCall(this.name, request.signal);
    const response = this.#answer(request);
    recordModelUsage(this.name, response.usage);
    for (const text of splitTokens(response.text ?? '')) yield { type: 'delta', text };
    yield { type: 'response', response };
  }

  #answer(request: ModelRequest): ModelResponse {
    const agent = request.agent ?? 'agent';
    const { input, toolResults, turn } = toolResultsSinceInput(request.messages);
    const conversation: OfflineConversation = {
      agent,
      messages: request.messages,
      input,
      toolResults,
      allowedTools: request.tools.map((t) => t.name),
      turn,
      // Without tools there is nothing to choose, as with a real server (tool_choice is not sent).
      toolChoice: request.tools.length === 0 ? 'auto' : (request.toolChoice ?? 'auto'),
      ...(request.responseFormat === undefined ? {} : { responseFormat: request.responseFormat }),
    };
    const source = request.offline !== undefined ? 'agent' : this.#rules[agent] !== undefined ? 'rules' : 'default';
    const rule = request.offline ?? this.#rules[agent] ?? defaultRule;
    const parsed = OfflineReply.safeParse(rule(conversation));
    if (!parsed.success) {
      throw new AgentDefinitionError(
        `the offline rule of agent "${agent}" returned an invalid reply (${formatZodError(parsed.error)}); ` +
          'return a string, { text }, { toolCalls: [{ name, arguments }] }, { json } or null',
      );
    }
    let reply = parsed.data;
    if (reply === null || reply === undefined) reply = defaultRule(conversation) as string;
    const assistantTurns = request.messages.filter((m) => m.role === 'assistant').length;
    const text = typeof reply === 'string' ? reply : 'json' in reply ? jsonText(agent, reply.json) : (reply.text ?? null);
    const toolCalls: ModelToolCall[] =
      typeof reply === 'object' && 'toolCalls' in reply
        ? reply.toolCalls.map((call, i) => ({
            id: `call_offline_${assistantTurns + 1}_${i + 1}`,
            name: call.name,
            arguments: JSON.stringify(call.arguments),
          }))
        : [];
    checkToolChoice(agent, conversation.toolChoice, toolCalls);
    return {
      text,
      toolCalls,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      rawResponse: {
        offline: true,
        model: 'offline',
        rule: source,
        note: 'answered by OfflineModel from deterministic rules; no model was called',
      },
    };
  }
}
