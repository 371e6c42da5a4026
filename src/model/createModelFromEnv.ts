import type { ModelClient } from './ModelClient.js';
import { DEFAULT_MODEL_IDLE_TIMEOUT_MS, DEFAULT_MODEL_MAX_RETRIES, DEFAULT_MODEL_TIMEOUT_MS, modelLimitsFromEnv, type ModelLimits } from './modelLimits.js';
import { OfflineModel, type OfflineModelOptions } from './OfflineModel.js';
import { OpenAIChatModel } from './OpenAIChatModel.js';

/** The model used when `SWITCHBOARD_MODEL` is not set. */
export const DEFAULT_MODEL = 'gpt-4o-mini';

/** Options for `createModelFromEnv()`; each limit given here wins over its environment variable. */
export interface ModelFromEnvOptions {
  /** Rules for the `OfflineModel` used without a key. */
  offline?: OfflineModelOptions;
  /** Retries of a failed request (default `SWITCHBOARD_MODEL_MAX_RETRIES` or 2, at most 10). */
  maxRetries?: number;
  /** The whole call, retries included, in milliseconds (default `SWITCHBOARD_MODEL_TIMEOUT_MS` or 60 000). */
  timeoutMs?: number;
  /** The longest wait between streamed chunks in milliseconds (default `SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS` or 30 000). */
  idleTimeoutMs?: number;
}

/**
 * Picks the model from the environment: with `OPENAI_API_KEY` an `OpenAIChatModel` (on
 * `OPENAI_BASE_URL` when set, model `SWITCHBOARD_MODEL` or `gpt-4o-mini`, limits from
 * `SWITCHBOARD_MODEL_TIMEOUT_MS`, `SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS` and
 * `SWITCHBOARD_MODEL_MAX_RETRIES` unless given as options); without it the embedded `OfflineModel`,
 * so everything still runs with no key and no network. The limit variables are checked either way:
 * a value that is not a plain whole number in range throws an `AgentDefinitionError` naming it.
 *
 * @example
 * const model = createModelFromEnv(); // OfflineModel unless OPENAI_API_KEY is set
 * const patient = createModelFromEnv(process.env, { timeoutMs: 120_000, idleTimeoutMs: 45_000 });
 */
export function createModelFromEnv(env: Record<string, string | undefined> = process.env, options: ModelFromEnvOptions = {}): ModelClient {
  const unset = (['timeoutMs', 'idleTimeoutMs', 'maxRetries'] as const).filter((key) => options[key] === undefined);
  // Defaults are filled here so the model reads nothing from process.env when `env` is another object.
  const limits: ModelLimits = {
    timeoutMs: DEFAULT_MODEL_TIMEOUT_MS,
    idleTimeoutMs: DEFAULT_MODEL_IDLE_TIMEOUT_MS,
    maxRetries: DEFAULT_MODEL_MAX_RETRIES,
    ...modelLimitsFromEnv(env, unset),
  };
  for (const key of ['timeoutMs', 'idleTimeoutMs', 'maxRetries'] as const) {
    const value = options[key];
    if (value !== undefined) limits[key] = value;
  }
  const apiKey = env['OPENAI_API_KEY']?.trim();
  if (!apiKey) return new OfflineModel(options.offline);
  const baseURL = env['OPENAI_BASE_URL']?.trim();
  const model = env['SWITCHBOARD_MODEL']?.trim();
  return new OpenAIChatModel({
    apiKey,
    model: model || DEFAULT_MODEL,
    ...(baseURL ? { baseURL } : {}),
    ...limits,
  });
}
