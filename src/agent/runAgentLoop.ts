import { z } from 'zod';
import type { Agent } from './Agent.js';
import type { AgentEvent } from './AgentEvent.js';
import type { AgentRunResult, AgentRunStatus, ToolCallRecord } from './AgentRunResult.js';
import type { AgentInput } from './AgentSession.js';
import { resolveAllowedTools } from './AgentTurnState.js';
import { callModel } from './callModel.js';
import { prepareToolCall, runToolCall } from './executeToolCall.js';
import { resolveToolChoice } from './resolveToolChoice.js';
import { checkStructuredOutput, repairMessage } from './structuredOutput.js';
import type { ToolEmittedEvent } from './tool.js';
import { toObservation, type ToolResult } from './ToolResult.js';
import type { AgentRequest } from '../graph/AgentNode.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import { ModelMessage, type ModelResponse } from '../model/ModelMessage.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';
import { AgentRunError } from '../errors/AgentRunError.js';
import { formatZodError } from '../errors/formatZodError.js';
import type { SerializedError } from '../errors/SwitchboardError.js';
import { withFields } from '../graph/withFields.js';

/** A session's memory, kept across its runs. */
export interface SessionMemory {
  messages: ModelMessage[];
  toolResults: ToolResult[];
}

/** What one run of the loop needs besides the agent and memory. */
export interface LoopOptions {
  signal: AbortSignal | undefined;
  workflow: WorkflowContext | undefined;
  depth: number;
  streaming: boolean;
  emit: (event: AgentEvent) => void;
}

/** Distributes Omit over the event union. */
type Pending<T> = T extends unknown ? Omit<T, 'agent'> : never;

/** The text of a run's input: a string as is, anything else as JSON. */
export function inputText(input: string | AgentRequest): string {
  const value = typeof input === 'string' ? input : input?.input;
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}

const InputMessages = z
  .array(ModelMessage)
  .min(1, 'give at least one message')
  .refine((messages) => messages.every((m) => m.role !== 'tool'), 'tool messages cannot start a run (they answer the assistant\'s tool calls)');

/** The messages a run's input adds to the conversation. */
function inputMessages(agent: string, input: AgentInput): ModelMessage[] {
  if (!Array.isArray(input)) return [{ role: 'user', content: inputText(input as string | AgentRequest) }];
  const parsed = InputMessages.safeParse(input);
  if (!parsed.success) {
    throw new AgentDefinitionError(`agent "${agent}": the input messages are invalid (${formatZodError(parsed.error)}); pass a string or { role, content } messages`);
  }
  return parsed.data;
}

/**
 * The ReAct loop: ask the model, run the tools it calls, feed the observations back, until it
 * answers without tool calls (`completed`), `maxIterations` turns are spent (`max-iterations`),
 * the signal aborts (`cancelled`) or malformed tool arguments survive their one repair turn
 * (`failed`), as does an answer that fails the agent's `outputSchema` after its one repair turn.
 * Model errors reject. The last event is always `final` with the result.
 */
export async function runAgentLoop<Out>(agent: Agent<Out>, memory: SessionMemory, input: AgentInput, options: LoopOptions): Promise<AgentRunResult<Out>> {
  const { signal, workflow, depth, streaming } = options;
  const emit = (event: Pending<AgentEvent> | ToolEmittedEvent) => options.emit(withFields(event, { agent: agent.name }) as AgentEvent);
  const toolCalls: ToolCallRecord[] = [];
  const toolResults: ToolResult[] = [];
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let steps = 0;
  let lastText: string | null = null;
  let rawResponse: unknown = null;
  let output: { value: Out } | undefined;

  const finish = (status: AgentRunStatus, error?: SerializedError): AgentRunResult<Out> => {
    const result: AgentRunResult<Out> = { agent: agent.name, status, outputText: lastText, toolCalls, toolResults, usage, steps, rawResponse };
    if (output !== undefined) result.output = output.value;
    if (error !== undefined) result.error = error;
    emit({ type: 'final', result });
    return result;
  };

  if (memory.messages.length === 0) memory.messages.push({ role: 'system', content: agent.instructions });
  memory.messages.push(...inputMessages(agent.name, input));
  let repairing = false;
  let structuredRepaired = false;

  for (let iteration = 1; iteration <= agent.maxIterations; iteration++) {
    if (signal?.aborted) return finish('cancelled');
    const allowed = resolveAllowedTools(agent.name, agent.tools, agent.allowedTools, {
      agent: agent.name,
      iteration,
      toolResults: memory.toolResults,
      succeeded: [...new Set(memory.toolResults.filter((r) => r.ok).map((r) => r.name))],
      messages: memory.messages,
      workflow,
    });
    const tools = allowed.map((name) => {
      const t = agent.tools.get(name)!;
      return { name: t.name, description: t.description, parameters: t.jsonSchema };
    });
    const toolChoice = resolveToolChoice(agent.name, agent.toolChoice, allowed, toolCalls.length);
    emit({ type: 'model.request', model: agent.model.name, iteration, tools: allowed, messages: memory.messages.length });
    let response: ModelResponse;
    try {
      response = await callModel(
        agent.model,
        {
          messages: [...memory.messages],
          tools,
          toolChoice,
          ...(agent.responseFormat === undefined ? {} : { responseFormat: agent.responseFormat }),
          ...(signal === undefined ? {} : { signal }),
          agent: agent.name,
          ...(agent.offline === undefined ? {} : { offline: agent.offline }),
        },
        streaming,
        (text) => emit({ type: 'model.delta', model: agent.model.name, iteration, text }),
      );
    } catch (error) {
      if (signal?.aborted) return finish('cancelled');
      throw error;
    }
    steps += 1;
    usage.inputTokens += response.usage.inputTokens ?? 0;
    usage.outputTokens += response.usage.outputTokens ?? 0;
    usage.totalTokens += response.usage.totalTokens ?? (response.usage.inputTokens ?? 0) + (response.usage.outputTokens ?? 0);
    lastText = response.text;
    rawResponse = response.rawResponse ?? null;
    memory.messages.push(
      response.toolCalls.length > 0
        ? { role: 'assistant', content: response.text, toolCalls: response.toolCalls }
        : { role: 'assistant', content: response.text },
    );
    emit({
      type: 'model.response',
      model: agent.model.name,
      iteration,
      text: response.text,
      toolCalls: response.toolCalls,
      usage: response.usage,
      finishReason: response.finishReason ?? null,
      ...responseIds(response.rawResponse),
    });
    if (response.toolCalls.length === 0) {
      if (signal?.aborted) return finish('cancelled');
      lastText = response.text ?? '';
      if (agent.outputSchema === undefined) return finish('completed');
      const checked = checkStructuredOutput(agent.outputSchema, response.text);
      if (checked.ok) {
        output = { value: checked.value as Out };
        return finish('completed');
      }
      if (structuredRepaired || iteration === agent.maxIterations) {
        const error = new AgentRunError(
          `agent "${agent.name}": ${checked.problem}` +
            (structuredRepaired ? ', again after its repair turn' : ` and no turn was left for a repair (maxIterations ${agent.maxIterations})`) +
            '; make the instructions ask for this JSON, simplify the outputSchema, or use a model that supports structured output',
          { code: 'structured_output_invalid', agent: agent.name },
        );
        return finish('failed', error.toJSON());
      }
      structuredRepaired = true;
      memory.messages.push({ role: 'user', content: repairMessage(checked.problem) });
      continue;
    }

    let malformed = false;
    for (const call of response.toolCalls) {
      const prepared = prepareToolCall(call, agent.tools, allowed);
      toolCalls.push({ id: call.id, name: call.name, arguments: prepared.args, iteration });
      emit({ type: 'tool.call', iteration, callId: call.id, name: call.name, arguments: prepared.args });
      let result: ToolResult;
      if (signal?.aborted) {
        // Every call gets an answer, so the memory stays a valid conversation for the next run.
        result = { callId: call.id, name: call.name, ok: false, error: `tool "${call.name}" was not run: the run was aborted`, code: 'run_cancelled', retryable: true };
      } else if (prepared.ready) {
        result = await runToolCall(call, prepared.tool, prepared.args, { signal, agent: agent.name, iteration, depth, workflow, emit });
      } else {
        result = prepared.result;
        malformed ||= prepared.malformedJson;
      }
      toolResults.push(result);
      memory.toolResults.push(result);
      memory.messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: toObservation(result) });
      emit({ type: 'tool.result', iteration, result });
    }
    if (signal?.aborted) return finish('cancelled');
    if (malformed && repairing) {
      const error = new AgentRunError(
        `agent "${agent.name}": the model sent malformed JSON tool arguments again after its repair turn; ` +
          'use a model that supports tool calling, or simplify the tool parameters',
        { code: 'invalid_tool_arguments', agent: agent.name },
      );
      return finish('failed', error.toJSON());
    }
    repairing = malformed;
  }
  const error = new AgentRunError(
    `agent "${agent.name}" reached maxIterations (${agent.maxIterations}) without a final answer; raise maxIterations or narrow its task`,
    { code: 'max_iterations', agent: agent.name },
  );
  return finish('max-iterations', error.toJSON());
}

/** The answering model and the response id a server put in its raw response, when it did. */
function responseIds(raw: unknown): { responseModel?: string; responseId?: string } {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as { model?: unknown; id?: unknown };
  return { ...(typeof r.model === 'string' ? { responseModel: r.model } : {}), ...(typeof r.id === 'string' ? { responseId: r.id } : {}) };
}
