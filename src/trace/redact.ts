/** What replaces a removed secret. */
export const REDACTED = '[redacted]';

const SECRET_ENV = /(API_KEY|_TOKEN|SECRET|PASSWORD)$/i;
const SECRET_KEY = /^(api[-_]?key|authorization|proxy-authorization|x-api-key|password|secret|access[-_]?token|refresh[-_]?token)$/i;
const DATA_URL = /data:[a-z]+\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=]+/gi;
const HAS_DATA_URL = /data:[a-z]+\/[a-z0-9.+-]+;base64,/i;

/** The values of secret-looking environment variables (API keys, tokens, passwords), longest first. */
export function secretValues(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_ENV.test(name) && value !== undefined && value.length >= 8)
    .map(([, value]) => value!)
    .sort((a, b) => b.length - a.length);
}

/** Replaces every secret value and every inline (data: URL) image inside a string. */
export function scrubString(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  if (out.includes('base64,')) out = out.replace(DATA_URL, '[image]');
  return out;
}

/**
 * A copy of a JSON value safe to store or send: secret values and inline images are replaced in
 * every string, values under secret-looking keys (`apiKey`, `authorization`, …) are replaced, and
 * keys starting with `__` are dropped. Non-JSON leaves (functions, symbols) are dropped too.
 */
export function redactForOutput(value: unknown, secrets: readonly string[] = secretValues()): unknown {
  const seen = new Set<object>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrubString(v, secrets);
    if (v === null || typeof v !== 'object') return typeof v === 'function' || typeof v === 'symbol' ? undefined : v;
    if (seen.has(v)) return '[cycle]';
    seen.add(v);
    let out: unknown;
    if (Array.isArray(v)) out = v.map(walk);
    else if (v instanceof Map) out = walk(Object.fromEntries(v));
    else if (v instanceof Error) out = { name: v.name, message: scrubString(v.message, secrets), code: (v as { code?: unknown }).code };
    else if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) out = '[binary]';
    else {
      const obj: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(v)) {
        if (key.startsWith('__')) continue;
        obj[key] = SECRET_KEY.test(key) && inner !== null && inner !== undefined ? REDACTED : walk(inner);
      }
      out = obj;
    }
    seen.delete(v);
    return out;
  };
  return walk(value);
}

/**
 * True when a JSON value contains a secret value or an inline image in any string. Snapshots are
 * checked with this and scrubbed only when needed, since most contain neither.
 */
export function containsSecret(value: unknown, secrets: readonly string[]): boolean {
  if (typeof value === 'string') return secrets.some((s) => value.includes(s)) || HAS_DATA_URL.test(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => containsSecret(v, secrets));
  return Object.values(value).some((v) => containsSecret(v, secrets));
}

/** A copy of a JSON value with secret values and inline images replaced (keys and structure kept). */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === 'string') return scrubString(value, secrets) as T;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubSecrets(v, secrets)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrubSecrets(v, secrets);
  return out as T;
}
