import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';
import { MODEL_NAME_RULE, ModelCatalog, modelNameProblem, type ModelEntry } from './ModelCatalog.js';
import { describeValue } from '../graph/describeValue.js';
import { DEFAULT_MODEL_IDLE_TIMEOUT_MS, DEFAULT_MODEL_MAX_RETRIES, DEFAULT_MODEL_TIMEOUT_MS, modelLimitsFromEnv, type ModelLimits } from './modelLimits.js';
import { OfflineModel, type OfflineModelOptions } from './OfflineModel.js';
import { OpenAIChatModel } from './OpenAIChatModel.js';

/** The model used when `SWITCHBOARD_MODEL` is not set. */
export const DEFAULT_MODEL = 'gpt-4o-mini';

/** The name the embedded `OfflineModel` goes by in a catalog from the environment. */
export const OFFLINE_MODEL_NAME = 'offline';

/** Options for `createModelFromEnv()` and `modelsFromEnv()`; each limit given here wins over its environment variable. */
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

/** The limits of model calls: the options, else the environment, else the defaults. */
function limitsOf(env: Record<string, string | undefined>, options: ModelFromEnvOptions): ModelLimits {
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
  return limits;
}

/**
 * The models the environment configures, as a `ModelCatalog`. With `OPENAI_API_KEY`: an
 * `OpenAIChatModel` (on `OPENAI_BASE_URL` when set) for `SWITCHBOARD_MODEL` (or `gpt-4o-mini`),
 * the default, then one for each further name in `SWITCHBOARD_MODELS` (comma-separated, served by
 * the same endpoint), then the embedded `OfflineModel` as `offline`. Without a key: `offline`
 * alone. The limit variables are checked either way (see `createModelFromEnv`); a name in
 * `SWITCHBOARD_MODEL` or `SWITCHBOARD_MODELS` that is not a valid model name (longer than 100
 * characters, with whitespace, a control character or another character a model name cannot have)
 * throws an `AgentDefinitionError` naming the variable, the name (cut after 60 characters) and the
 * problem.
 *
 * @example
 * // OPENAI_API_KEY=… SWITCHBOARD_MODEL=gpt-4o-mini SWITCHBOARD_MODELS=gpt-4o
 * modelsFromEnv().names; // ['gpt-4o-mini', 'gpt-4o', 'offline']
 */
export function modelsFromEnv(env: Record<string, string | undefined> = process.env, options: ModelFromEnvOptions = {}): ModelCatalog {
  const limits = limitsOf(env, options);
  const offline: ModelEntry = { name: OFFLINE_MODEL_NAME, model: new OfflineModel(options.offline) };
  const apiKey = env['OPENAI_API_KEY']?.trim();
  if (!apiKey) return new ModelCatalog([offline]);
  const baseURL = env['OPENAI_BASE_URL']?.trim();
  const first = env['SWITCHBOARD_MODEL']?.trim() || DEFAULT_MODEL;
  const more = (env['SWITCHBOARD_MODELS'] ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  for (const [variable, list] of [['SWITCHBOARD_MODEL', [first]], ['SWITCHBOARD_MODELS', more]] as const) {
    for (const name of list) {
      const problem = modelNameProblem(name);
      if (problem !== null) throw new AgentDefinitionError(`${variable}: model name ${describeValue(name)} ${problem}; ${MODEL_NAME_RULE}`);
    }
  }
  const names = [...new Set([first, ...more])];
  const clash = names.find((name) => name === OFFLINE_MODEL_NAME);
  if (clash !== undefined) {
    throw new AgentDefinitionError(`SWITCHBOARD_MODEL / SWITCHBOARD_MODELS name "${clash}", the name of the embedded offline model; name the hosted models as their server does`);
  }
  try {
    return new ModelCatalog([...names.map((name) => ({ name, model: new OpenAIChatModel({ apiKey, model: name, ...(baseURL ? { baseURL } : {}), ...limits }) })), offline]);
  } catch (error) {
    throw error instanceof AgentDefinitionError ? new AgentDefinitionError(`SWITCHBOARD_MODEL / SWITCHBOARD_MODELS: ${error.message}`, error) : error;
  }
}
