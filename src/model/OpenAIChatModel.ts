import OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { ChatCompletionChunkWire, ChatCompletionWire, type UsageWire } from './ChatCompletionWire.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from './ModelClient.js';
import type { ModelMessage, ModelResponse, ModelUsage } from './ModelMessage.js';
import { ToolCallAssembler } from './ToolCallAssembler.js';
import { describeEndpoint, toModelError, type ModelCallInfo } from './toModelError.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';
import { ModelError } from '../errors/ModelError.js';
import { formatZodError } from '../errors/formatZodError.js';

/** Options for `new OpenAIChatModel()`. */
export interface OpenAIChatModelOptions {
  /** The model name, e.g. `gpt-4o-mini`, `deepseek-chat`, `llama3.1`. */
  model: string;
  /** A ready client (its own baseURL, key and retries are used); otherwise one is created. */
  client?: OpenAI;
  /** Any OpenAI-compatible server (default: `OPENAI_BASE_URL` or api.openai.com). */
  baseURL?: string;
  /** Default: `OPENAI_API_KEY`; a local server given by `baseURL` may need none. */
  apiKey?: string;
  /** Retries of 408/409/429/5xx and connection failures by the SDK (default 2). */
  maxRetries?: number;
  /** Per-request timeout in milliseconds (SDK default: 10 minutes). */
  timeoutMs?: number;
  /** Sampling temperature, passed through when set. */
  temperature?: number;
  /** Ask for usage in streamed responses (`stream_options.include_usage`, default true); turn off for servers that reject it. */
  streamUsage?: boolean;
}

const Options = z.object({
  model: z.string().trim().min(1, 'model must name the model to call, e.g. "gpt-4o-mini"'),
  client: z.instanceof(OpenAI).optional(),
  baseURL: z.url({ protocol: /^https?$/, error: 'baseURL must be an absolute http(s) URL such as "http://127.0.0.1:11434/v1"' }).optional(),
  apiKey: z.string().min(1, 'apiKey must not be empty; omit it to use OPENAI_API_KEY').optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  timeoutMs: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  streamUsage: z.boolean().optional(),
});

function toUsage(usage: z.infer<typeof UsageWire>): ModelUsage {
  if (!usage) return {};
  const out: ModelUsage = {};
  if (usage.prompt_tokens !== undefined) out.inputTokens = usage.prompt_tokens;
  if (usage.completion_tokens !== undefined) out.outputTokens = usage.completion_tokens;
  if (usage.total_tokens !== undefined) out.totalTokens = usage.total_tokens;
  return out;
}

function toWireMessage(message: ModelMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      if (message.images === undefined || message.images.length === 0) return { role: 'user', content: message.content };
      // The SDK's image input: a text part, then one image_url part per image.
      return {
        role: 'user',
        content: [
          { type: 'text', text: message.content },
          ...message.images.map((image) => ({
            type: 'image_url' as const,
            image_url: image.detail === undefined ? { url: image.url } : { url: image.url, detail: image.detail },
          })),
        ],
      };
    case 'assistant':
      return message.toolCalls && message.toolCalls.length > 0
        ? {
            role: 'assistant',
            content: message.content,
            tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
          }
        : { role: 'assistant', content: message.content ?? '' };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

/**
 * A `ModelClient` on the `openai` package's chat completions API, for OpenAI and every server that
 * speaks it (DeepSeek, vLLM, Ollama…). Streaming assembles tool-call fragments. The SDK retries
 * 408/409/429/5xx and connection failures `maxRetries` times; after that a `ModelError`
 * (`rate_limited` or `model_retries_exhausted`) says so, without the key.
 *
 * @example
 * const model = new OpenAIChatModel({ model: 'llama3.1', baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'ollama' });
 */
export class OpenAIChatModel implements ModelClient {
  readonly name: string;
  readonly model: string;
  readonly #client: OpenAI;
  readonly #info: ModelCallInfo;
  readonly #temperature: number | undefined;
  readonly #streamUsage: boolean;

  constructor(options: OpenAIChatModelOptions) {
    const parsed = Options.safeParse(options);
    if (!parsed.success) {
      throw new AgentDefinitionError(`new OpenAIChatModel(): ${formatZodError(parsed.error)}`);
    }
    const { model, client, baseURL, apiKey, maxRetries, timeoutMs, temperature, streamUsage } = parsed.data;
    if (client === undefined) {
      const key = apiKey ?? process.env['OPENAI_API_KEY'] ?? (baseURL !== undefined ? 'no-key' : undefined);
      if (key === undefined || key === '') {
        throw new AgentDefinitionError(
          'new OpenAIChatModel(): no API key; set OPENAI_API_KEY, pass apiKey, pass a baseURL of a server that needs none, or use OfflineModel',
        );
      }
      this.#client = new OpenAI({
        apiKey: key,
        ...(baseURL === undefined ? {} : { baseURL }),
        ...(maxRetries === undefined ? {} : { maxRetries }),
        ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      });
    } else {
      this.#client = client;
    }
    this.model = model;
    this.name = `openai:${model}`;
    this.#temperature = temperature;
    this.#streamUsage = streamUsage ?? true;
    this.#info = {
      model,
      endpoint: describeEndpoint(this.#client.baseURL),
      maxRetries: maxRetries ?? this.#client.maxRetries,
      secret: this.#client.apiKey ?? undefined,
    };
  }

  /** One chat completion. */
  async complete(request: ModelRequest): Promise<ModelResponse> {
    let raw: unknown;
    try {
      raw = await this.#client.chat.completions.create(
        { ...this.#body(request), stream: false },
        { signal: request.signal ?? null, maxRetries: this.#info.maxRetries },
      );
    } catch (error) {
      throw toModelError(error, this.#info);
    }
    const parsed = ChatCompletionWire.safeParse(raw);
    if (!parsed.success) throw this.#unreadable(parsed.error);
    const choice = parsed.data.choices[0]!;
    return {
      text: choice.message.content ?? null,
      toolCalls: (choice.message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments ?? '' })),
      usage: toUsage(parsed.data.usage),
      finishReason: choice.finish_reason ?? null,
      rawResponse: raw,
    };
  }

  /** A streamed chat completion: text deltas, then the response with tool calls assembled. */
  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const assembler = new ToolCallAssembler();
    let text = '';
    let sawText = false;
    let usage: ModelUsage = {};
    let finishReason: string | null = null;
    let id: string | undefined;
    let chunks = 0;
    try {
      const stream = await this.#client.chat.completions.create(
        { ...this.#body(request), stream: true, ...(this.#streamUsage ? { stream_options: { include_usage: true } } : {}) },
        { signal: request.signal ?? null, maxRetries: this.#info.maxRetries },
      );
      for await (const raw of stream) {
        const parsed = ChatCompletionChunkWire.safeParse(raw);
        if (!parsed.success) throw this.#unreadable(parsed.error);
        chunks += 1;
        id ??= parsed.data.id;
        if (parsed.data.usage) usage = toUsage(parsed.data.usage);
        for (const choice of parsed.data.choices) {
          if (choice.finish_reason) finishReason = choice.finish_reason;
          const content = choice.delta?.content;
          if (content) {
            sawText = true;
            text += content;
            yield { type: 'delta', text: content };
          }
          for (const delta of choice.delta?.tool_calls ?? []) assembler.add(delta);
        }
      }
    } catch (error) {
      throw toModelError(error, this.#info);
    }
    const response: ModelResponse = {
      text: sawText ? text : null,
      toolCalls: assembler.finish(),
      usage,
      finishReason,
      rawResponse: { id, model: this.model, streamed: true, chunks },
    };
    yield { type: 'response', response };
  }

  #body(request: ModelRequest): ChatCompletionCreateParamsBase {
    const body: ChatCompletionCreateParamsBase = {
      model: this.model,
      messages: request.messages.map(toWireMessage),
    };
    if (this.#temperature !== undefined) body.temperature = this.#temperature;
    if (request.tools.length > 0) {
      body.tools = request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
      const choice = request.toolChoice ?? 'auto';
      body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
    }
    return body;
  }

  #unreadable(error: z.ZodError): ModelError {
    return new ModelError(
      `model "${this.model}" at ${this.#info.endpoint} answered with a chat completion Switchboard cannot read (${formatZodError(error)}); ` +
        'check that the server speaks the OpenAI chat completions API',
      { code: 'model_error', fault: 'system', retryable: false },
    );
  }
}
