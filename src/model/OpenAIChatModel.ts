import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { ChatCompletionChunkWire, ChatCompletionWire, type UsageWire } from './ChatCompletionWire.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from './ModelClient.js';
import type { ModelMessage, ModelResponse, ModelUsage } from './ModelMessage.js';
import { beforeModelCall, recordModelUsage } from '../budget/BudgetMeter.js';
import { CallDeadline } from './CallDeadline.js';
import { DEFAULT_MODEL_IDLE_TIMEOUT_MS, DEFAULT_MODEL_MAX_RETRIES, DEFAULT_MODEL_TIMEOUT_MS, MAX_MODEL_RETRIES, MAX_TIMEOUT_MS, modelLimitsFromEnv } from './modelLimits.js';
import { ToolCallAssembler } from './ToolCallAssembler.js';
import { abortedCallError, describeEndpoint, toModelError, type ModelCallInfo } from './toModelError.js';
import { loadOpenAI } from './loadOpenAI.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';
import { BudgetError } from '../errors/BudgetError.js';
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
  /** Retries of 408/409/429/5xx and connection failures by the SDK (default `SWITCHBOARD_MODEL_MAX_RETRIES` or 2, at most 10). */
  maxRetries?: number;
  /**
   * The longest a whole call may take in milliseconds, retries and back-off included (default
   * `SWITCHBOARD_MODEL_TIMEOUT_MS` or 60 000). Past it the call fails with a `ModelError` of code `timeout`.
   */
  timeoutMs?: number;
  /**
   * The longest wait between two streamed chunks in milliseconds, counted from the response's
   * headers (default `SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS` or 30 000). A stream that stalls longer
   * fails with a `ModelError` of code `timeout`.
   */
  idleTimeoutMs?: number;
  /** Sampling temperature, passed through when set. */
  temperature?: number;
  /** Ask for usage in streamed responses (`stream_options.include_usage`, default true); turn off for servers that reject it. */
  streamUsage?: boolean;
}

const Options = z.object({
  model: z.string().trim().min(1, 'model must name the model to call, e.g. "gpt-4o-mini"'),
  // Checked by shape, not with instanceof: the SDK is imported only when the first call is made,
  // and a client from another copy of the package works just as well.
  client: z.custom<OpenAI>(isOpenAIClient, 'client must be a client of the openai package (new OpenAI({ … }))').optional(),
  baseURL: z.url({ protocol: /^https?$/, error: 'baseURL must be an absolute http(s) URL such as "http://127.0.0.1:11434/v1"' }).optional(),
  apiKey: z.string().min(1, 'apiKey must not be empty; omit it to use OPENAI_API_KEY').optional(),
  maxRetries: z.number().int().min(0).max(MAX_MODEL_RETRIES).optional(),
  timeoutMs: z.number().int().positive().max(MAX_TIMEOUT_MS).optional(),
  idleTimeoutMs: z.number().int().positive().max(MAX_TIMEOUT_MS).optional(),
  temperature: z.number().min(0).max(2).optional(),
  streamUsage: z.boolean().optional(),
});

/** Whether `value` looks like an `openai` client: chat completions, a base URL and a retry count. */
function isOpenAIClient(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const client = value as { baseURL?: unknown; maxRetries?: unknown; chat?: { completions?: { create?: unknown } } };
  return typeof client.baseURL === 'string' && typeof client.maxRetries === 'number' && typeof client.chat?.completions?.create === 'function';
}

/** The base URL the SDK uses when none is passed: `OPENAI_BASE_URL` (trimmed, when not empty) or OpenAI's. */
function defaultBaseURL(): string {
  return process.env['OPENAI_BASE_URL']?.trim() || 'https://api.openai.com/v1';
}

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
 * (`rate_limited` or `model_retries_exhausted`) says so, without the key. Every call is bounded:
 * `timeoutMs` for the whole call and `idleTimeoutMs` between streamed chunks, each ending the call
 * with a `ModelError` of code `timeout` that names the limit.
 *
 * @example
 * const model = new OpenAIChatModel({ model: 'llama3.1', baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'ollama' });
 */
export class OpenAIChatModel implements ModelClient {
  readonly name: string;
  readonly model: string;
  /** The SDK client, created (and the SDK imported) on the first call. */
  readonly #client: () => Promise<OpenAI>;
  readonly #info: ModelCallInfo;
  readonly #temperature: number | undefined;
  readonly #streamUsage: boolean;
  /** The limit of a whole call, retries included, in milliseconds. */
  readonly timeoutMs: number;
  /** The longest wait between streamed chunks, in milliseconds. */
  readonly idleTimeoutMs: number;

  constructor(options: OpenAIChatModelOptions) {
    const parsed = Options.safeParse(options);
    if (!parsed.success) {
      throw new AgentDefinitionError(`new OpenAIChatModel(): ${formatZodError(parsed.error)}`);
    }
    const { model, client, baseURL, apiKey, temperature, streamUsage } = parsed.data;
    // The environment fills only the limits the options leave out, so a value given here wins over a bad variable.
    const unset = (['timeoutMs', 'idleTimeoutMs', 'maxRetries'] as const).filter((key) => parsed.data[key] === undefined);
    const fromEnv = modelLimitsFromEnv(process.env, unset);
    const timeoutMs = parsed.data.timeoutMs ?? fromEnv.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
    const idleTimeoutMs = parsed.data.idleTimeoutMs ?? fromEnv.idleTimeoutMs ?? DEFAULT_MODEL_IDLE_TIMEOUT_MS;
    const maxRetries = parsed.data.maxRetries ?? fromEnv.maxRetries ?? (client === undefined ? DEFAULT_MODEL_MAX_RETRIES : client.maxRetries);
    let endpoint: string;
    let secret: string | undefined;
    if (client === undefined) {
      const key = apiKey ?? process.env['OPENAI_API_KEY'] ?? (baseURL !== undefined ? 'no-key' : undefined);
      if (key === undefined || key === '') {
        throw new AgentDefinitionError(
          'new OpenAIChatModel(): no API key; set OPENAI_API_KEY, pass apiKey, pass a baseURL of a server that needs none, or use OfflineModel',
        );
      }
      // The SDK (about 150 modules) is imported when the first call is made, so a process that
      // configures this model but never calls it (or runs offline) does not pay for it.
      let created: Promise<OpenAI> | undefined;
      const options = {
        apiKey: key,
        ...(baseURL === undefined ? {} : { baseURL }),
        maxRetries,
        // One attempt never needs longer than the whole call may take.
        timeout: timeoutMs,
      };
      this.#client = () => (created ??= loadOpenAI().then((sdk) => new sdk.default(options)));
      endpoint = describeEndpoint(baseURL ?? defaultBaseURL());
      secret = key;
    } else {
      const ready = Promise.resolve(client);
      this.#client = () => ready;
      endpoint = describeEndpoint(client.baseURL);
      secret = client.apiKey ?? undefined;
    }
    this.model = model;
    this.name = `openai:${model}`;
    this.#temperature = temperature;
    this.#streamUsage = streamUsage ?? true;
    this.timeoutMs = timeoutMs;
    this.idleTimeoutMs = idleTimeoutMs;
    this.#info = { model, endpoint, maxRetries, secret };
  }

  /** One chat completion. */
  async complete(request: ModelRequest): Promise<ModelResponse> {
    const client = await this.#ready();
    request = this.#metered(request);
    const deadline = this.#deadline(request);
    let raw: unknown;
    try {
      raw = await deadline.race(
        client.chat.completions.create({ ...this.#body(request), stream: false }, { signal: deadline.signal, maxRetries: this.#info.maxRetries }),
      );
    } catch (error) {
      throw await this.#failure(error, deadline, request, 0);
    } finally {
      deadline.dispose();
    }
    const parsed = ChatCompletionWire.safeParse(raw);
    if (!parsed.success) throw this.#unreadable(parsed.error);
    const choice = parsed.data.choices[0]!;
    const usage = toUsage(parsed.data.usage);
    recordModelUsage(this.name, usage);
    return {
      text: choice.message.content ?? null,
      toolCalls: (choice.message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments ?? '' })),
      usage,
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
    const client = await this.#ready();
    request = this.#metered(request);
    const deadline = this.#deadline(request);
    let iterator: AsyncIterator<unknown> | undefined;
    try {
      const stream = await deadline.race(
        client.chat.completions.create(
          { ...this.#body(request), stream: true, ...(this.#streamUsage ? { stream_options: { include_usage: true } } : {}) },
          { signal: deadline.signal, maxRetries: this.#info.maxRetries },
        ),
      );
      iterator = stream[Symbol.asyncIterator]();
      for (;;) {
        deadline.startIdle();
        const step = await deadline.race(iterator.next());
        deadline.stopIdle();
        if (step.done) break;
        const raw = step.value;
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
      iterator = undefined;
    } catch (error) {
      throw await this.#failure(error, deadline, request, chunks);
    } finally {
      deadline.dispose();
      // A stream left early (an error, a timeout, a consumer that stopped) releases its connection.
      if (iterator !== undefined) void Promise.resolve(iterator.return?.()).catch(() => {});
    }
    recordModelUsage(this.name, usage);
    const response: ModelResponse = {
      text: sawText ? text : null,
      toolCalls: assembler.finish(),
      usage,
      finishReason,
      rawResponse: { id, model: this.model, streamed: true, chunks },
    };
    yield { type: 'response', response };
  }

  /**
   * The client, once the SDK is imported (on the first call; later calls get it at once). Loading
   * the module is not the server's time, so it happens before the call's limits start.
   */
  async #ready(): Promise<OpenAI> {
    try {
      return await this.#client();
    } catch (error) {
      throw toModelError(error, this.#info, undefined);
    }
  }

  /** Checks the run's budget before the call; a run with a duration budget aborts the call when it runs out. */
  #metered(request: ModelRequest): ModelRequest {
    const signal = beforeModelCall(this.name, request.signal);
    return signal === request.signal ? request : { ...request, signal };
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
    const format = request.responseFormat;
    if (format !== undefined) {
      body.response_format = { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: format.strict } };
    }
    return body;
  }

  #deadline(request: ModelRequest): CallDeadline {
    return new CallDeadline({ signal: request.signal, timeoutMs: this.timeoutMs, idleTimeoutMs: this.idleTimeoutMs });
  }

  /** The `ModelError` for what a call threw: a limit that expired, the caller's abort, or what the SDK said. */
  async #failure(error: unknown, deadline: CallDeadline, request: ModelRequest, chunks: number): Promise<ModelError | BudgetError> {
    // The run's duration budget ran out while the call was in flight: say so rather than "aborted".
    if (request.signal?.aborted && request.signal.reason instanceof BudgetError) return request.signal.reason;
    const who = `model "${this.model}" at ${this.#info.endpoint}`;
    if (deadline.expired === 'timeoutMs') {
      return new ModelError(
        `${who} did not finish within ${this.timeoutMs} ms (timeoutMs, retries included); ` +
          'raise it with the timeoutMs option or SWITCHBOARD_MODEL_TIMEOUT_MS, or check that the server answers',
        { code: 'timeout', limit: 'timeoutMs', cause: error },
      );
    }
    if (deadline.expired === 'idleTimeoutMs') {
      return new ModelError(
        `${who} stopped streaming: no chunk for ${this.idleTimeoutMs} ms after ${chunks} chunk${chunks === 1 ? '' : 's'} (idleTimeoutMs); ` +
          'raise it with the idleTimeoutMs option or SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS, or check the server',
        { code: 'timeout', limit: 'idleTimeoutMs', cause: error },
      );
    }
    if (error instanceof ModelError) return error;
    if (request.signal?.aborted) return abortedCallError(this.#info, error);
    // The SDK is loaded by now unless importing it is what failed; its error classes say what happened.
    const sdk = await loadOpenAI().catch(() => undefined);
    return toModelError(error, this.#info, sdk?.default);
  }

  #unreadable(error: z.ZodError): ModelError {
    return new ModelError(
      `model "${this.model}" at ${this.#info.endpoint} answered with a chat completion Switchboard cannot read (${formatZodError(error)}); ` +
        'check that the server speaks the OpenAI chat completions API',
      { code: 'model_error', fault: 'system', retryable: false },
    );
  }
}
