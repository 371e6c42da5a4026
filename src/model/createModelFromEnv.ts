import type { ModelClient } from './ModelClient.js';
import { modelsFromEnv, type ModelFromEnvOptions } from './modelsFromEnv.js';

export { DEFAULT_MODEL, type ModelFromEnvOptions } from './modelsFromEnv.js';

/**
 * Picks the model from the environment: with `OPENAI_API_KEY` an `OpenAIChatModel` (on
 * `OPENAI_BASE_URL` when set, model `SWITCHBOARD_MODEL` or `gpt-4o-mini`, limits from
 * `SWITCHBOARD_MODEL_TIMEOUT_MS`, `SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS` and
 * `SWITCHBOARD_MODEL_MAX_RETRIES` unless given as options); without it the embedded `OfflineModel`,
 * so everything still runs with no key and no network. The limit variables are checked either way:
 * a value that is not a plain whole number in range throws an `AgentDefinitionError` naming it.
 * It is the default of `modelsFromEnv()`, which also gives the other configured models.
 *
 * @example
 * const model = createModelFromEnv(); // OfflineModel unless OPENAI_API_KEY is set
 * const patient = createModelFromEnv(process.env, { timeoutMs: 120_000, idleTimeoutMs: 45_000 });
 */
export function createModelFromEnv(env: Record<string, string | undefined> = process.env, options: ModelFromEnvOptions = {}): ModelClient {
  return modelsFromEnv(env, options).get();
}
