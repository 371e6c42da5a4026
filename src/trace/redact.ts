import { types } from 'node:util';
import { quoteJson } from '../persistence/quoteJson.js';
import { replaceBase64Blobs } from './replaceBase64Blobs.js';

/** What replaces a removed secret. */
export const REDACTED = '[redacted]';

const SECRET_ENV = /(API_KEY|_TOKEN|SECRET|PASSWORD)$/i;
/** A key whose value is a credential: one of these names, or a name ending with one (`openaiApiKey`, `client_secret`, `X-Auth-Token`). */
const SECRET_KEY =
  /(api[-_]?key|authorization|cookie|password|passwd|secret|access[-_]?token|refresh[-_]?token|bearer[-_]?token|auth[-_]?token|id[-_]?token|session[-_]?token|private[-_]?key)$/i;
const DATA_URL = /data:[a-z]+\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=]+/gi;
/** `Bearer <token>` / `Basic <credentials>` anywhere in text, e.g. a logged header or an error message. */
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
/** `authorization: …`, `api_key=…`, `"x-api-key": "…"`, `password=…`, `OPENAI_API_KEY=…` written into text. */
// The name is matched wherever it ends (OPENAI_API_KEY= matches at API_KEY, its prefix stays as it
// was), with no word boundary or prefix pattern before it: a prefix pattern backtracks over every
// boundary of a long text (quadratic on "a-a-a-…").
const KEY_ASSIGNMENT =
  /(authorization|api[-_]?key|access[-_]?token|refresh[-_]?token|auth[-_]?token|client[-_]?secret|password|passwd|private[-_]?key)(["']?\s*[:=]\s*["']?)(?!\[redacted\]|Bearer\s|Basic\s)[^\s"',&;]{6,}/gi;
/** Provider keys that look like `sk-…` (OpenAI, DeepSeek, Anthropic), even when not in the environment. */
const SK_KEY = /\bsk-[A-Za-z0-9_-]{16,}/g;
/** One cheap test that says whether any of the text patterns above except the blob can match. */
const SUSPECT = /base64,|bearer\s|basic\s|authorization|api[-_]?key|access[-_]?token|refresh[-_]?token|auth[-_]?token|client[-_]?secret|password|passwd|private[-_]?key|sk-/i;
const HAS_BLOB = /[A-Za-z0-9+/]{256}/;
/**
 * How much a scrub removes. Everything that leaves a run also loses base64 blobs (file content
 * pasted as text); a stored snapshot keeps them, since it must restore the state exactly and a
 * long base64-looking value (a hash list, a token-free document) is data, not a secret.
 */
export interface ScrubOptions {
  /** Replace runs of 256+ base64 characters with `[binary]` (default true). */
  blobs?: boolean;
}

/** Whether any of the text patterns can match (the blob pattern only in long strings, and only when asked). */
const suspect = (text: string, blobs: boolean): boolean => SUSPECT.test(text) || (blobs && text.length >= 256 && HAS_BLOB.test(text));

/** Secret-looking keys seen so far (keys repeat in every event, the regular expression need not). */
const keyVerdicts = new Map<string, boolean>();
function isSecretKey(key: string): boolean {
  let verdict = keyVerdicts.get(key);
  if (verdict === undefined) {
    verdict = SECRET_KEY.test(key);
    if (keyVerdicts.size < 10_000) keyVerdicts.set(key, verdict);
  }
  return verdict;
}

/**
 * The values of secret-looking environment variables (API keys, tokens, passwords), longest first.
 * Read anew at every call (a run reads them once, when it starts), so a key set after the process
 * started is scrubbed from every run that starts after it.
 */
export function secretValues(env: NodeJS.ProcessEnv = process.env): string[] {
  const values: string[] = [];
  // Names first: reading a value of process.env crosses into the runtime, and most names are not secret.
  for (const name of Object.keys(env)) {
    if (!SECRET_ENV.test(name)) continue;
    const value = env[name];
    if (value !== undefined && value.length >= 8) values.push(value);
  }
  return values.sort((a, b) => b.length - a.length);
}

/** True when a string holds a secret value, an inline image, a base64 blob or a credential. */
export function stringNeedsScrub(text: string, secrets: readonly string[], options: ScrubOptions = {}): boolean {
  if (text.length < 8) return false;
  for (const secret of secrets) if (text.includes(secret)) return true;
  return suspect(text, options.blobs ?? true);
}

/**
 * Replaces, inside a string: every secret value, inline images (data: URLs), base64 blobs of
 * 256+ characters, `Bearer`/`Basic` credentials, `authorization: …`/`api_key=…` values and
 * `sk-…` keys. Most strings hold none of them and are returned after one substring test per
 * secret and one regular-expression test.
 */
export function scrubString(text: string, secrets: readonly string[], options: ScrubOptions = {}): string {
  if (text.length < 8) return text;
  const blobs = options.blobs ?? true;
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  if (!suspect(out, blobs)) return out;
  try {
    if (out.includes('base64,')) out = out.replace(DATA_URL, '[image]');
    if (blobs && out.length >= 256) out = replaceBase64Blobs(out, '[binary]');
    return out.replace(AUTH_SCHEME, `$1 ${REDACTED}`).replace(KEY_ASSIGNMENT, `$1$2${REDACTED}`).replace(SK_KEY, REDACTED);
  } catch (error) {
    // A pattern ran out of stack on a run of megabytes (a data URL, a token): none of the text is kept.
    if (error instanceof RangeError) return `${REDACTED} (text of ${out.length} characters too long to scan)`;
    throw error;
  }
}

/** True for a Buffer after `toJSON()`: `{ type: 'Buffer', data: [...] }`. */
function isBufferJson(value: object): boolean {
  const v = value as { type?: unknown; data?: unknown };
  return v.type === 'Buffer' && Array.isArray(v.data) && Object.keys(value).length === 2;
}

/**
 * A copy of a value safe to store or send, in JSON form:
 * - secret values, inline images, base64 blobs and credentials are replaced inside every string,
 *   keys included (see {@link scrubString});
 * - values under secret-looking keys (`apiKey`, `authorization`, `cookie`, `password`, or a name
 *   ending with one, such as `openai_api_key` or `X-Auth-Token`) become `[redacted]`;
 * - keys starting with `__` are dropped;
 * - bytes (Buffers, typed arrays, ArrayBuffers, a Buffer's JSON form) become `[binary]`;
 * - Maps become objects, errors `{ name, message, code }` (each redacted), boxed primitives
 *   (`new String(…)`) the primitive, objects with `toJSON` (dates too) their JSON form, arrays of
 *   any class plain arrays; BigInts their decimal text (JSON has no form for them, and an event
 *   that holds one could be neither stored nor streamed); functions and symbols are dropped and
 *   cycles become `[cycle]`.
 *
 * @example
 * redactForOutput({ apiKey: 'sk-…', image: 'data:image/png;base64,iVBOR…', __raw: {} });
 * // → { apiKey: '[redacted]', image: '[image]' }
 */
export function redactForOutput(value: unknown, secrets: readonly string[] = secretValues()): unknown {
  return redactFields(value, secrets, null);
}

/**
 * Short strings seen clean, per list of secrets: the ids, types and names of a run's events repeat
 * in every event, and a lookup is cheaper than scanning them again. Bounded; cleared when full.
 */
const cleanStrings = new WeakMap<readonly string[], Set<string>>();
const CLEAN_MAX_LENGTH = 200;
const CLEAN_MAX_ENTRIES = 4096;

function scrubCached(text: string, secrets: readonly string[], clean: Set<string>): string {
  if (text.length < 8) return text;
  if (text.length > CLEAN_MAX_LENGTH) return scrubString(text, secrets);
  if (clean.has(text)) return text;
  const out = scrubString(text, secrets);
  if (out === text) {
    if (clean.size >= CLEAN_MAX_ENTRIES) clean.clear();
    clean.add(text);
  }
  return out;
}

/**
 * {@link redactForOutput}; for an object, the top-level keys in `verbatim` are copied as they are
 * (an event's envelope: the engine's own ids and numbers).
 */
export function redactFields(value: unknown, secrets: readonly string[], verbatim: ReadonlySet<string> | null): unknown {
  let clean = cleanStrings.get(secrets);
  if (clean === undefined) cleanStrings.set(secrets, (clean = new Set()));
  const known = clean;
  const seen = new Set<object>();
  const walk = (v: unknown, top = false): unknown => {
    if (typeof v === 'string') return scrubCached(v, secrets, known);
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'bigint') return v.toString();
      return typeof v === 'function' || typeof v === 'symbol' ? undefined : v;
    }
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) return '[binary]';
    // new String(…), new Number(…): JSON writes the primitive inside (the String one through its
    // toString), not the characters as keys.
    if (types.isBoxedPrimitive(v)) return walk(unboxed(v));
    if (seen.has(v)) return '[cycle]';
    seen.add(v);
    let out: unknown;
    if (Array.isArray(v)) {
      if (hasToJSON(v)) out = walk(v.toJSON());
      else {
        // A plain array, whatever the value's class (an Array subclass's map could build anything).
        const list: unknown[] = [];
        for (let i = 0; i < v.length; i++) list.push(walk(v[i]));
        out = list;
      }
    } else if (v instanceof Map) out = walk(Object.fromEntries(v));
    else if (v instanceof Error) out = { name: walk(v.name), message: walk(v.message), code: walk((v as { code?: unknown }).code) };
    // Dates too: their toJSON is what JSON writes (null for an invalid one), and its text is scrubbed.
    else if (hasToJSON(v)) out = walk(v.toJSON());
    else if (isBufferJson(v)) out = '[binary]';
    else {
      const obj: Record<string, unknown> = {};
      for (const key of Object.keys(v)) {
        const inner = (v as Record<string, unknown>)[key];
        if (top && verbatim !== null && verbatim.has(key)) {
          obj[key] = inner;
          continue;
        }
        if (key.startsWith('__')) continue;
        // A key can hold a secret too (a map keyed by token); two keys scrubbed alike keep the last.
        obj[scrubCached(key, secrets, known)] = inner !== null && inner !== undefined && isSecretKey(key) ? REDACTED : walk(inner);
      }
      out = obj;
    }
    seen.delete(v);
    return out;
  };
  return walk(value, true);
}

/**
 * The primitive JSON writes for a boxed one: a String object through its `toString` (as JSON does,
 * so an overridden one is what is checked), a Number through `valueOf`, others their own value.
 */
function unboxed(value: object): unknown {
  if (types.isStringObject(value)) return String(value);
  if (types.isNumberObject(value)) return Number(value);
  if (types.isBooleanObject(value)) return Boolean.prototype.valueOf.call(value);
  if (types.isBigIntObject(value)) return BigInt.prototype.valueOf.call(value);
  // A Symbol object: JSON writes it as an object with no keys.
  return {};
}

/**
 * What JSON.stringify writes in place of an object before it walks it, as stored snapshots are:
 * what its toJSON gives (unless `asJSON`: the object is itself what a toJSON gave, which is not
 * asked again), a boxed primitive's primitive; the object itself otherwise.
 */
function written(value: object, asJSON: boolean): unknown {
  if (!asJSON && hasToJSON(value)) return value.toJSON();
  return types.isBoxedPrimitive(value) ? unboxed(value) : value;
}

/** True when `JSON.stringify` would call `value.toJSON()` (own or inherited, enumerable or not). */
function hasToJSON(value: object): value is { toJSON(): unknown } {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/** How deep {@link redactsToItself} looks before it leaves a value to {@link redactFields}. */
const UNCHANGED_MAX_DEPTH = 64;

/**
 * True when {@link redactFields} would give back a plain copy equal to `value` (nothing to scrub,
 * drop or convert), so the value itself can be written instead; false when in doubt (a value deeper
 * than 64 levels, a getter that throws). It walks the value without copying it.
 */
export function redactsToItself(value: unknown, secrets: readonly string[], verbatim: ReadonlySet<string> | null): boolean {
  let clean = cleanStrings.get(secrets);
  if (clean === undefined) cleanStrings.set(secrets, (clean = new Set()));
  try {
    return unchanged(value, secrets, clean, verbatim, 0);
  } catch {
    return false;
  }
}

function unchanged(v: unknown, secrets: readonly string[], clean: Set<string>, verbatim: ReadonlySet<string> | null, depth: number): boolean {
  if (typeof v === 'string') return scrubCached(v, secrets, clean) === v;
  if (v === null || typeof v !== 'object') return typeof v !== 'function' && typeof v !== 'symbol' && typeof v !== 'bigint';
  if (depth >= UNCHANGED_MAX_DEPTH) return false;
  if (types.isBoxedPrimitive(v)) return false;
  if (Array.isArray(v)) {
    if (hasToJSON(v) || Object.getPrototypeOf(v) !== Array.prototype) return false;
    for (let i = 0; i < v.length; i++) if (!unchanged(v[i], secrets, clean, null, depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(v) as object | null;
  if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === 'function' || isBufferJson(v)) return false;
  for (const key of Object.keys(v)) {
    if (depth === 0 && verbatim !== null && verbatim.has(key)) continue;
    if (key.startsWith('__') || scrubCached(key, secrets, clean) !== key) return false;
    const inner = (v as Record<string, unknown>)[key];
    if (inner !== null && inner !== undefined && isSecretKey(key)) {
      if (inner !== REDACTED) return false;
    } else if (!unchanged(inner, secrets, clean, null, depth + 1)) return false;
  }
  return true;
}

/** How many objects and arrays {@link cleanPlainJson} looks at before it leaves a value to the general path. */
const CLEAN_PLAIN_MAX_NODES = 2_000;
let cleanPlainNodes = 0;

/**
 * The `JSON.stringify` text of `value` when it is plain JSON that {@link redactFields} gives back as
 * it is, so the text is what a store keeps and what a redacted copy would be; else null. Plain JSON
 * here: plain objects and arrays, strings shorter than `maxString`, finite numbers, booleans, null
 * and undefined (left out of an object, null in an array, as JSON writes them), with no string a
 * scrub would change, no `__` key, no secret-looking key, no `toJSON` (a key, or a method
 * `JSON.stringify` would call: own or inherited, enumerable or not, on an object or an array) and
 * no object whose `type` is `'Buffer'`. Checked and written in one walk, reading each property once
 * (half the time of a check followed by `JSON.stringify` for the small values a step makes); null
 * when in doubt (deeper than 64 levels, more than 2,000 objects), for which the caller takes the
 * general path. Undefined itself, which JSON does not write, is null.
 */
export function cleanPlainJson(value: unknown, secrets: readonly string[], maxString: number): string | null {
  let clean = cleanStrings.get(secrets);
  if (clean === undefined) cleanStrings.set(secrets, (clean = new Set()));
  cleanPlainNodes = CLEAN_PLAIN_MAX_NODES;
  return value === undefined ? null : cleanPlainText(value, secrets, clean, maxString, 0);
}

/** Keys with their JSON text: a run's values repeat their keys step after step. Bounded; cleared when full. */
const quotedKeys = new Map<string, string>();
function quotedKey(key: string): string {
  let text = quotedKeys.get(key);
  if (text === undefined) {
    text = quoteJson(key);
    if (quotedKeys.size >= CLEAN_MAX_ENTRIES) quotedKeys.clear();
    quotedKeys.set(key, text);
  }
  return text;
}

function cleanPlainText(v: unknown, secrets: readonly string[], clean: Set<string>, maxString: number, depth: number): string | null {
  switch (typeof v) {
    case 'string':
      return v.length < maxString && scrubCached(v, secrets, clean) === v ? quoteJson(v) : null;
    case 'number':
      // A finite number's JSON is its string (-0 is 0 in both).
      return Number.isFinite(v) ? String(v) : null;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      break;
    default:
      return null;
  }
  if (v === null) return 'null';
  if (depth >= UNCHANGED_MAX_DEPTH || --cleanPlainNodes < 0) return null;
  // JSON.stringify calls a toJSON it finds anywhere on the value, enumerable or not, own or
  // inherited (an array's own, an Array subclass's, one defined with defineProperty): such a
  // value takes the general path, which redacts what toJSON gives.
  if (hasToJSON(v) || types.isBoxedPrimitive(v)) return null;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return null;
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      const inner: unknown = v[i];
      const text = inner === undefined ? 'null' : cleanPlainText(inner, secrets, clean, maxString, depth + 1);
      if (text === null) return null;
      out += i === 0 ? text : `,${text}`;
    }
    return `${out}]`;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return null;
  let out = '{';
  for (const key in v) {
    if (key.startsWith('__') || key === 'toJSON' || isSecretKey(key) || scrubCached(key, secrets, clean) !== key) return null;
    const inner = (v as Record<string, unknown>)[key];
    if (key === 'type' && inner === 'Buffer') return null;
    if (inner === undefined) continue;
    const text = cleanPlainText(inner, secrets, clean, maxString, depth + 1);
    if (text === null) return null;
    // An inherited key (a polluted Object.prototype) is checked, as the general path would see it, but JSON leaves it out.
    if (!Object.hasOwn(v, key)) continue;
    out += `${out.length === 1 ? '' : ','}${quotedKey(key)}:${text}`;
  }
  return `${out}}`;
}

/**
 * True when a JSON value contains, in any string, something {@link scrubString} would replace.
 * Snapshots are checked with this and scrubbed only when needed, since most contain nothing.
 */
export function containsSecret(value: unknown, secrets: readonly string[], options: ScrubOptions = {}): boolean {
  return secretIn(value, secrets, options, false);
}

/** `asJSON`: `value` is what a toJSON gave (JSON.stringify does not call toJSON on that again). */
function secretIn(value: unknown, secrets: readonly string[], options: ScrubOptions, asJSON: boolean): boolean {
  if (typeof value === 'string') return stringNeedsScrub(value, secrets, options);
  if (value === null || typeof value !== 'object') return false;
  const given = written(value, asJSON);
  if (given !== value) return secretIn(given, secrets, options, true);
  if (Array.isArray(value)) return value.some((v) => secretIn(v, secrets, options, false));
  for (const key of Object.keys(value)) if (stringNeedsScrub(key, secrets, options)) return true;
  return Object.values(value).some((v) => secretIn(v, secrets, options, false));
}

/**
 * A copy of a JSON value with every string scrubbed (keys and structure kept, so it can be
 * restored); a value with a `toJSON` is replaced by what it gives, as JSON.stringify would store it.
 */
export function scrubSecrets<T>(value: T, secrets: readonly string[], options: ScrubOptions = {}): T {
  return scrubbed(value, secrets, options, false) as T;
}

function scrubbed(value: unknown, secrets: readonly string[], options: ScrubOptions, asJSON: boolean): unknown {
  if (typeof value === 'string') return scrubString(value, secrets, options);
  if (value === null || typeof value !== 'object') return value;
  const given = written(value, asJSON);
  if (given !== value) return scrubbed(given, secrets, options, true);
  if (Array.isArray(value)) {
    const list: unknown[] = [];
    for (let i = 0; i < value.length; i++) list.push(scrubbed(value[i], secrets, options, false));
    return list;
  }
  const out: Record<string, unknown> = {};
  // A function is left out, as JSON.stringify leaves it out (a copied toJSON would give the original
  // back); keys are scrubbed as strings are, and written as own keys (`__proto__` included).
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'function') Object.defineProperty(out, scrubString(k, secrets, options), { value: scrubbed(v, secrets, options, false), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A persisted snapshot as it may be stored: secrets and inline images scrubbed, everything else exact. */
export function storableSnapshot<T>(snapshot: T, secrets: readonly string[]): T {
  const options = { blobs: false };
  return containsSecret(snapshot, secrets, options) ? scrubSecrets(snapshot, secrets, options) : snapshot;
}
