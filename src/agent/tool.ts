import { z } from 'zod';
import type { HandoffCompletedEvent, HandoffStartedEvent } from './AgentEvent.js';
import type { WorkflowContext } from '../graph/WorkflowContext.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';
import { formatZodError } from '../errors/formatZodError.js';

/** Removes `agent` from each member of a union of events (the loop adds it). */
type WithoutAgent<T> = T extends unknown ? Omit<T, 'agent'> : never;

/** Events a tool may add to its agent's stream. */
export type ToolEmittedEvent = WithoutAgent<HandoffStartedEvent | HandoffCompletedEvent>;

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  /** Aborts when the tool times out or the agent's run is aborted. */
  readonly signal: AbortSignal;
  /** The agent that called the tool. */
  readonly agent: string;
  /** The model's id for this call. */
  readonly callId: string;
  /** The loop iteration (model turn) that made the call, 1-based. */
  readonly iteration: number;
  /** Handoff depth of the calling agent: 0 for a top-level agent, 1 for a subagent, … */
  readonly depth: number;
  /** The graph context when the agent runs as a graph node. */
  readonly workflow: WorkflowContext | undefined;
  /**
   * For a tool with `sideEffects`: a key unique to this call within the run (`run:step:tool#n`),
   * the same when a recovered run repeats the step. Pass it to the system you call so it can drop
   * a repeated request.
   */
  readonly idempotencyKey?: string;
  /** Adds an event to the agent's event stream. */
  emit(event: ToolEmittedEvent): void;
}

/** What `tool()` takes. */
export interface ToolConfig<P extends z.ZodObject> {
  /** Letters, digits, `_` and `-`, at most 64 characters (the OpenAI rule). */
  name: string;
  /** Tells the model when and how to use the tool. */
  description: string;
  /** A zod object; arguments are parsed with it before `execute`, and the JSON schema sent to the model is derived from it. */
  parameters: P;
  /** Does the work; return JSON-serializable output. A throw becomes an `{ ok: false }` observation. */
  execute(args: z.output<P>, ctx: ToolContext): unknown;
  /** Abort and report a timeout after this many milliseconds (default: no limit). */
  timeoutMs?: number;
  /**
   * The tool changes the world (charges a card, sends a mail). In a stored run its result is
   * journaled by (run, step, call): when a recovered run repeats the step, the recorded result is
   * returned and `execute` is not called again. If the process died after `execute` acted but
   * before its result was journaled, `execute` runs again with the same `ctx.idempotencyKey`: pass
   * that key to the system you call so the repeat does nothing. Its output must be JSON.
   */
  sideEffects?: boolean;
}

/** A tool an agent can call, made by `tool()`. */
export interface Tool<P extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly description: string;
  readonly parameters: P;
  /** The JSON schema of the arguments, derived from `parameters` with `z.toJSONSchema`. */
  readonly jsonSchema: Record<string, unknown>;
  readonly timeoutMs: number | undefined;
  readonly sideEffects: boolean;
  execute(args: z.output<P>, ctx: ToolContext): unknown;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const Config = z.object({
  name: z.string().regex(TOOL_NAME, 'name must be 1-64 letters, digits, "_" or "-" (e.g. "get_weather")'),
  description: z.string().trim().min(1, 'description must tell the model what the tool does'),
  parameters: z.custom<z.ZodObject>((v) => v instanceof z.ZodObject, 'parameters must be a zod object, e.g. z.object({ city: z.string() })'),
  execute: z.custom<(...args: unknown[]) => unknown>((v) => typeof v === 'function', 'execute must be a function (args, ctx) => output'),
  timeoutMs: z.number().int().positive('timeoutMs must be a positive integer of milliseconds').optional(),
  sideEffects: z.boolean('sideEffects must be true or false').optional(),
});

/** The JSON schema the model gets for a zod object (input side: defaulted fields are optional). */
export function toolJsonSchema(parameters: z.ZodObject): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(parameters, { io: 'input' }) as Record<string, unknown>;
  return schema;
}

/**
 * Defines a tool. Arguments are parsed with `parameters` before `execute` runs; the JSON schema sent
 * to the model comes from the same zod object. A failure (throw, timeout, invalid arguments) is fed
 * back to the model as `{ ok: false, error, retryable }`, never thrown out of the agent.
 *
 * @example
 * const getWeather = tool({
 *   name: 'get_weather',
 *   description: 'Current weather for a city',
 *   parameters: z.object({ city: z.string() }),
 *   execute: ({ city }) => ({ city, sky: 'sunny', celsius: 21 }),
 * });
 */
export function tool<P extends z.ZodObject>(config: ToolConfig<P>): Tool<P> {
  const parsed = Config.safeParse(config);
  if (!parsed.success) {
    const name = typeof config?.name === 'string' ? `"${config.name}"` : '';
    throw new AgentDefinitionError(`tool(${name}): ${formatZodError(parsed.error)}`);
  }
  let jsonSchema: Record<string, unknown>;
  try {
    jsonSchema = toolJsonSchema(config.parameters);
  } catch (error) {
    throw new AgentDefinitionError(
      `tool("${config.name}"): its parameters cannot be expressed as JSON schema; use JSON-compatible zod types (no transforms, dates or functions)`,
      error,
    );
  }
  return Object.freeze({
    name: config.name,
    description: config.description,
    parameters: config.parameters,
    jsonSchema,
    timeoutMs: config.timeoutMs,
    sideEffects: config.sideEffects ?? false,
    execute: config.execute,
  });
}
