import { z } from 'zod';
import { AgentSession, type AgentInput, type AgentRunOptions } from './AgentSession.js';
import type { AgentRunResult } from './AgentRunResult.js';
import type { AllowedTools } from './AgentTurnState.js';
import { ToolChoiceOption, validateToolChoice } from './resolveToolChoice.js';
import { responseFormatFor } from './structuredOutput.js';
import type { Tool } from './tool.js';
import { createModelFromEnv } from '../model/createModelFromEnv.js';
import type { ModelClient, ModelResponseFormat, ToolChoice } from '../model/ModelClient.js';
import type { OfflineRule } from '../model/OfflineRule.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';
import { formatZodError } from '../errors/formatZodError.js';

/** Options for `new Agent()`; `Out` is what `outputSchema` parses the answer into. */
export interface AgentOptions<Out = unknown> {
  /** Names the agent in events, errors and subagent tool names. */
  name: string;
  /** The system prompt. */
  instructions: string;
  /** Default: `createModelFromEnv()` — OpenAI with `OPENAI_API_KEY`, else the `OfflineModel`. */
  model?: ModelClient;
  tools?: readonly Tool[];
  /** Most model turns per run (default 8); reaching it ends the run with status `max-iterations`. */
  maxIterations?: number;
  /** The tools exposed on each turn (default: all), e.g. `calculate_refund` only after `lookup_order` succeeded. */
  allowedTools?: AllowedTools;
  /** This agent's deterministic rule for the `OfflineModel`. */
  offline?: OfflineRule;
  /**
   * Whether the model may call tools (`auto`, the default), must not (`none`), must call one
   * (`required`) or must call the named tool (`{ name }`). `required` and `{ name }` hold until the
   * run's first tool call, then the model answers freely, so the loop can end. A name that is not
   * one of the agent's tools throws an `AgentDefinitionError` here.
   */
  toolChoice?: ToolChoice;
  /**
   * Structured output: the final answer must be JSON matching this zod schema. It is sent to the
   * model as a JSON-schema response format; the answer is parsed and checked, gets one repair turn
   * when it fails, and then ends the run `failed` with code `structured_output_invalid`. The parsed
   * value is the result's `output`.
   */
  outputSchema?: z.ZodType<Out>;
  /** Ask the server to enforce `outputSchema` exactly (default: true when every object property is required). */
  outputStrict?: boolean;
}

/** The default of `maxIterations`. */
export const DEFAULT_MAX_ITERATIONS = 8;

const isFunction = (v: unknown) => typeof v === 'function';
const Options = z.object({
  name: z.string().trim().min(1, 'name must be a non-blank string'),
  instructions: z.string({ error: 'instructions must be a string (the system prompt)' }),
  model: z
    .custom<ModelClient>(
      (v) => typeof v === 'object' && v !== null && isFunction((v as ModelClient).complete) && isFunction((v as ModelClient).stream),
      'model must be a ModelClient with complete() and stream() (OpenAIChatModel, OfflineModel, ScriptedModel)',
    )
    .optional(),
  tools: z
    .array(
      z.custom<Tool>(
        (v) => typeof v === 'object' && v !== null && typeof (v as Tool).name === 'string' && isFunction((v as Tool).execute) && 'jsonSchema' in v,
        'each tool must be made with tool({ name, description, parameters, execute })',
      ),
    )
    .optional(),
  maxIterations: z.number().int().min(1, 'maxIterations must be at least 1').max(1000, 'maxIterations must be at most 1000').optional(),
  allowedTools: z.union([z.array(z.string()), z.custom<(state: unknown) => readonly string[]>(isFunction)], {
    error: 'allowedTools must be an array of tool names or a function (state) => tool names',
  }).optional(),
  offline: z.custom<OfflineRule>(isFunction, 'offline must be a function (conversation) => reply').optional(),
  toolChoice: ToolChoiceOption.optional(),
  outputSchema: z.custom<z.ZodType>((v) => v instanceof z.ZodType, 'outputSchema must be a zod schema, e.g. z.object({ ... })').optional(),
  outputStrict: z.boolean('outputStrict must be true or false').optional(),
});

/**
 * An agent: a model, instructions and tools, running its own decide → act → observe loop. Each
 * `newSession()` has its own message memory.
 *
 * @example
 * const agent = new Agent({ name: 'weather', instructions: 'Answer with the weather.', tools: [getWeather] });
 * const result = await agent.newSession().run('Weather in Paris?');
 * result.status; // 'completed'
 */
export class Agent<Out = unknown> {
  readonly name: string;
  readonly instructions: string;
  readonly model: ModelClient;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly maxIterations: number;
  readonly allowedTools: AllowedTools | undefined;
  readonly offline: OfflineRule | undefined;
  /** The agent's tool choice (default `auto`). */
  readonly toolChoice: ToolChoice;
  /** The schema the final answer must match, if any. */
  readonly outputSchema: z.ZodType<Out> | undefined;
  /** The response format sent to the model for `outputSchema`. */
  readonly responseFormat: ModelResponseFormat | undefined;

  constructor(options: AgentOptions<Out>) {
    const parsed = Options.safeParse(options);
    if (!parsed.success) {
      const name = typeof options?.name === 'string' ? `"${options.name}"` : '';
      throw new AgentDefinitionError(`new Agent(${name}): ${formatZodError(parsed.error)}`);
    }
    this.name = options.name;
    this.instructions = options.instructions;
    this.model = options.model ?? createModelFromEnv();
    const tools = new Map<string, Tool>();
    for (const t of options.tools ?? []) {
      if (tools.has(t.name)) {
        throw new AgentDefinitionError(`new Agent("${options.name}"): two tools are named "${t.name}"; tool names must be unique`);
      }
      tools.set(t.name, t);
    }
    this.tools = tools;
    this.maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    if (Array.isArray(options.allowedTools)) {
      const unknown = options.allowedTools.filter((n) => !tools.has(n));
      if (unknown.length > 0) {
        throw new AgentDefinitionError(
          `new Agent("${options.name}"): allowedTools names ${unknown.map((n) => `"${n}"`).join(', ')}, not among its tools (${[...tools.keys()].join(', ') || 'none'})`,
        );
      }
    }
    this.allowedTools = options.allowedTools;
    this.offline = options.offline;
    validateToolChoice(options.name, options.toolChoice, tools, options.allowedTools);
    this.toolChoice = options.toolChoice ?? 'auto';
    this.outputSchema = options.outputSchema;
    this.responseFormat = options.outputSchema === undefined ? undefined : responseFormatFor(options.name, options.outputSchema, options.outputStrict);
  }

  /** A new session with empty memory. */
  newSession(): AgentSession<Out> {
    return new AgentSession(this);
  }

  /** Runs `input` in a new session (no memory carried between calls). */
  run(input: AgentInput, options: AgentRunOptions = {}): Promise<AgentRunResult<Out>> {
    return this.newSession().run(input, options);
  }
}
