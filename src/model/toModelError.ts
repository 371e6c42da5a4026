import type OpenAI from 'openai';
import { ModelError } from '../errors/ModelError.js';
import { describeThrown } from '../errors/SwitchboardError.js';

/** What a model error message may say about the call. */
export interface ModelCallInfo {
  /** The model name, e.g. `gpt-4o-mini`. */
  model: string;
  /** The server, without credentials or query. */
  endpoint: string;
  /** The client's `maxRetries`. */
  maxRetries: number;
  /** The API key, removed from anything quoted from the server. */
  secret?: string | undefined;
}

/** Removes the key, anything that looks like an OpenAI key, and bearer tokens from server text. */
export function redactSecrets(text: string, secret?: string): string {
  let out = secret && secret.length >= 4 ? text.split(secret).join('[redacted]') : text;
  out = out.replace(/sk-[A-Za-z0-9_*\-]{4,}/g, '[redacted]').replace(/Bearer\s+\S+/gi, 'Bearer [redacted]');
  return out.length > 300 ? `${out.slice(0, 300)}…` : out;
}

/** Describes a base URL without user info, query or fragment. */
export function describeEndpoint(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`;
  } catch {
    return '(unparseable base URL)';
  }
}

/** The SDK's error classes `toModelError` tells apart (the `OpenAI` class carries them). */
export type OpenAIErrorClasses = Pick<typeof OpenAI, 'APIUserAbortError' | 'APIConnectionTimeoutError' | 'APIConnectionError' | 'APIError'>;

const describeCall = (info: ModelCallInfo) => `model "${info.model}" at ${info.endpoint}`;

/** The `ModelError` of a call its caller aborted. */
export function abortedCallError(info: ModelCallInfo, cause: unknown): ModelError {
  return new ModelError(`the call to ${describeCall(info)} was aborted`, { code: 'model_error', fault: 'user', retryable: false, cause });
}

/**
 * Turns what the `openai` SDK threw into a `ModelError` that says who is at fault and what to do.
 * The SDK has already retried 408/409/429/5xx and connection failures `maxRetries` times. `sdk` is
 * the SDK's `OpenAI` class, whose error classes are told apart; without it (the SDK could not be
 * imported) every error is a plain `model_error`.
 */
export function toModelError(error: unknown, info: ModelCallInfo, sdk: OpenAIErrorClasses | undefined): ModelError {
  if (error instanceof ModelError) return error;
  const who = describeCall(info);
  const attempts = info.maxRetries + 1;
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'} (maxRetries ${info.maxRetries})`;
  if (sdk === undefined) return unknownFailure(error, info);
  if (error instanceof sdk.APIUserAbortError) return abortedCallError(info, error);
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new ModelError(
      `${who} did not answer in time on any of ${tries} (the client's own per-attempt timeout); ` +
        'raise the timeout of the OpenAI client you passed, or pass none and set timeoutMs',
      { code: 'timeout', limit: 'timeoutMs', attempts, cause: error },
    );
  }
  if (error instanceof sdk.APIConnectionError) {
    return new ModelError(
      `could not reach ${who} after ${tries}: ${redactSecrets(error.message, info.secret)}; ` +
        'check OPENAI_BASE_URL / baseURL and that the server is running',
      { code: 'model_retries_exhausted', attempts, fault: 'system', cause: error },
    );
  }
  if (error instanceof sdk.APIError && typeof error.status === 'number') {
    const status = error.status;
    if (status === 429) {
      return new ModelError(
        `${who} kept answering 429 (rate limited) after ${tries}; wait and retry, lower the request rate, or raise maxRetries`,
        { code: 'rate_limited', status, attempts, cause: error },
      );
    }
    if (status >= 500 || status === 408 || status === 409) {
      return new ModelError(
        `${who} kept failing with HTTP ${status} after ${tries}; the server is unavailable — retry later or raise maxRetries`,
        { code: 'model_retries_exhausted', status, attempts, cause: error },
      );
    }
    if (status === 401 || status === 403) {
      return new ModelError(
        `${who} rejected the credentials (HTTP ${status}); check OPENAI_API_KEY (or the apiKey option) and that it is valid for this server`,
        { code: 'model_error', status, attempts: 1, fault: 'user', retryable: false, cause: error },
      );
    }
    const hint = status === 404 ? '; check the model name (SWITCHBOARD_MODEL) and baseURL' : '; fix the request or the model options';
    return new ModelError(`${who} rejected the request with HTTP ${status}: ${redactSecrets(error.message, info.secret)}${hint}`, {
      code: 'model_error',
      status,
      attempts: 1,
      fault: 'user',
      retryable: false,
      cause: error,
    });
  }
  return unknownFailure(error, info);
}

/** A failure the SDK's error classes do not describe. */
function unknownFailure(error: unknown, info: ModelCallInfo): ModelError {
  return new ModelError(`${describeCall(info)} failed: ${redactSecrets(describeThrown(error), info.secret)}`, {
    code: 'model_error',
    fault: 'system',
    retryable: false,
    cause: error,
  });
}
