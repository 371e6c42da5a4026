import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';

/** The longest a whole model call may take, retries included, unless configured (60 s). */
export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;
/** The longest wait between two streamed chunks unless configured (30 s). */
export const DEFAULT_MODEL_IDLE_TIMEOUT_MS = 30_000;
/** Retries of a failed model request (429, 5xx, connection errors) unless configured. */
export const DEFAULT_MODEL_MAX_RETRIES = 2;
/** The most retries a model call may be configured with. */
export const MAX_MODEL_RETRIES = 10;
/** Node's timers fire at once beyond this many milliseconds, so no limit may exceed it. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** The time and retry limits of model calls. */
export interface ModelLimits {
  /** The whole call, retries and back-off included, in milliseconds. */
  timeoutMs: number;
  /** The longest wait between two streamed chunks, in milliseconds. */
  idleTimeoutMs: number;
  /** Retries after the first attempt. */
  maxRetries: number;
}

const ENV: Record<keyof ModelLimits, { name: string; min: number; max: number }> = {
  timeoutMs: { name: 'SWITCHBOARD_MODEL_TIMEOUT_MS', min: 1, max: MAX_TIMEOUT_MS },
  idleTimeoutMs: { name: 'SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS', min: 1, max: MAX_TIMEOUT_MS },
  maxRetries: { name: 'SWITCHBOARD_MODEL_MAX_RETRIES', min: 0, max: MAX_MODEL_RETRIES },
};

/** Quotes what the user wrote, shortened, so an error can show it. */
function quote(raw: string): string {
  return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
}

/**
 * Reads `SWITCHBOARD_MODEL_TIMEOUT_MS`, `SWITCHBOARD_MODEL_IDLE_TIMEOUT_MS` and
 * `SWITCHBOARD_MODEL_MAX_RETRIES`. Only plain decimal integers in range are accepted (no sign,
 * exponent, hex, fraction or blank value); anything else is an `AgentDefinitionError` naming the
 * variable. Unset variables are left out of the result; `keys` limits which are read.
 */
export function modelLimitsFromEnv(
  env: Record<string, string | undefined>,
  keys: readonly (keyof ModelLimits)[] = ['timeoutMs', 'idleTimeoutMs', 'maxRetries'],
): Partial<ModelLimits> {
  const limits: Partial<ModelLimits> = {};
  for (const key of keys) {
    const { name, min, max } = ENV[key];
    const raw = env[name];
    if (raw === undefined) continue;
    const value = /^\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      const unit = key === 'maxRetries' ? 'retries' : 'milliseconds';
      throw new AgentDefinitionError(
        `${name} must be a whole number of ${unit} from ${min} to ${max}, written in plain digits; received ${quote(raw)}. ` +
          `Fix or unset it (default ${defaultOf(key)}).`,
      );
    }
    limits[key] = value;
  }
  return limits;
}

function defaultOf(key: keyof ModelLimits): number {
  if (key === 'timeoutMs') return DEFAULT_MODEL_TIMEOUT_MS;
  if (key === 'idleTimeoutMs') return DEFAULT_MODEL_IDLE_TIMEOUT_MS;
  return DEFAULT_MODEL_MAX_RETRIES;
}
