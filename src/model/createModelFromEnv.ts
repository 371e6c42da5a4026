import type { ModelClient } from './ModelClient.js';
import { OfflineModel, type OfflineModelOptions } from './OfflineModel.js';
import { OpenAIChatModel } from './OpenAIChatModel.js';

/** The model used when `SWITCHBOARD_MODEL` is not set. */
export const DEFAULT_MODEL = 'gpt-4o-mini';

/**
 * Picks the model from the environment: with `OPENAI_API_KEY` an `OpenAIChatModel` (on
 * `OPENAI_BASE_URL` when set, model `SWITCHBOARD_MODEL` or `gpt-4o-mini`); without it the embedded
 * `OfflineModel`, so everything still runs with no key and no network.
 *
 * @example
 * const model = createModelFromEnv(); // OfflineModel unless OPENAI_API_KEY is set
 */
export function createModelFromEnv(
  env: Record<string, string | undefined> = process.env,
  options: { offline?: OfflineModelOptions; maxRetries?: number } = {},
): ModelClient {
  const apiKey = env['OPENAI_API_KEY']?.trim();
  if (!apiKey) return new OfflineModel(options.offline);
  const baseURL = env['OPENAI_BASE_URL']?.trim();
  const model = env['SWITCHBOARD_MODEL']?.trim();
  return new OpenAIChatModel({
    apiKey,
    model: model || DEFAULT_MODEL,
    ...(baseURL ? { baseURL } : {}),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
  });
}
