import { StoreError } from './StoreError.js';

/** The most bytes one stored value (a run's snapshot, one event, one journal entry) may take by default: 16 MiB. */
export const MAX_STORED_BYTES = 16 * 1024 * 1024;

/** How deeply a stored value may nest (objects and arrays inside each other). */
export const MAX_STORED_DEPTH = 1000;

/** Strings this long (and objects whose JSON is about this long) are stored once per snapshot, however often they appear. */
export const SHARED_VALUE_MIN = 1024;

/** Marks a value encoded with a value table (see {@link encodeStored}). */
const TABLE_FORMAT = 'values/1';
const FORMAT_KEY = '$switchboard';
const REF = '$ref';
const LITERAL = '$obj';

const MIB = 1024 * 1024;
const size = (bytes: number): string => (bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`);

/** Why a value is not JSON, or null when it is (undefined counts as JSON: it is left out, as JSON.stringify does). */
function notJson(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : String(value);
    case 'object': {
      if (value === null || Array.isArray(value)) return null;
      const proto = Object.getPrototypeOf(value) as object | null;
      return proto === Object.prototype || proto === null ? null : `a ${(value as object).constructor?.name ?? 'class instance'}`;
    }
    default:
      return `a ${typeof value}`;
  }
}

/** A key path short enough for a message (a deep one keeps its start and its end). */
function shortPath(path: string): string {
  return path.length <= 160 ? path : `${path.slice(0, 80)}…${path.slice(-60)}`;
}

/** What the first walk learns: how often each long string and each object appears, and each object's JSON size. */
interface Census {
  strings: Map<string, number>;
  objects: Map<object, { count: number; bytes: number }>;
  repeated: boolean;
  /** About the size of the value's JSON (strings and keys without escapes, 8 per number). */
  bytes: number;
}

/**
 * Walks a value once: checks that it is JSON (no Map, Date, class instance, function, bigint,
 * non-finite number or cycle; at most {@link MAX_STORED_DEPTH} levels) and counts repeats.
 */
function census(root: unknown, what: string): Census {
  const found: Census = { strings: new Map(), objects: new Map(), repeated: false, bytes: 0 };
  const onPath = new Set<object>();
  // The keys down to the value being visited; joined into a path only for an error message.
  const keys: Array<string | number> = [];
  const fail = (message: string, code: 'not_json' | 'value_too_large') => {
    const path = keys.reduce<string>((at, key) => (typeof key === 'number' ? `${at}[${key}]` : `${at}.${key}`), what);
    throw new StoreError(`${shortPath(path)} ${message}`, { code });
  };
  const visit = (value: unknown, depth: number): number => {
    if (typeof value === 'string') {
      if (value.length >= SHARED_VALUE_MIN) {
        const seen = found.strings.get(value) ?? 0;
        if (seen > 0) found.repeated = true;
        found.strings.set(value, seen + 1);
      }
      return value.length + 2;
    }
    if (value === null || typeof value === 'boolean' || typeof value === 'undefined') return 5;
    if (typeof value === 'number' && Number.isFinite(value)) return 8;
    const bad = notJson(value);
    if (bad !== null) fail(`holds ${bad}, which JSON cannot represent; store plain objects, arrays, strings, finite numbers, booleans or null`, 'not_json');
    const object = value as object;
    const known = found.objects.get(object);
    if (known !== undefined) {
      if (onPath.has(object)) fail('refers back to itself (a cycle); JSON cannot represent cycles', 'not_json');
      known.count += 1;
      found.repeated ||= known.bytes >= SHARED_VALUE_MIN;
      return known.bytes;
    }
    if (depth > MAX_STORED_DEPTH) fail(`is nested more than ${MAX_STORED_DEPTH} levels deep; flatten it before storing it`, 'value_too_large');
    const entry = { count: 1, bytes: 2 };
    found.objects.set(object, entry);
    onPath.add(object);
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) {
        keys.push(i);
        entry.bytes += visit(object[i], depth + 1) + 1;
        keys.pop();
      }
    } else {
      for (const key of Object.keys(object)) {
        keys.push(key);
        entry.bytes += key.length + 4 + visit((object as Record<string, unknown>)[key], depth + 1);
        keys.pop();
      }
    }
    onPath.delete(object);
    return entry.bytes;
  };
  found.bytes = visit(root, 0);
  return found;
}

/** Objects and arrays a quick measure visits at most: a value that shares objects heavily is left to the census, which visits each once. */
const QUICK_NODES = 50_000;
let quickNodes = 0;
/** Set by {@link quickSize} when the value holds a long string or a large object (a value table might apply). */
let quickLong = false;
/** Set by {@link quickSize} when the value holds a long string. */
let quickLongString = false;

/**
 * The census's byte count for a value with nothing unusual, in one walk without bookkeeping, or -1
 * (not JSON, too deep, a cycle, too many objects): then the census decides, and names the key.
 * A shared object is walked again at each place, as JSON.stringify writes it.
 */
function quickSize(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      if (value.length >= SHARED_VALUE_MIN) quickLong = quickLongString = true;
      return value.length + 2;
    case 'number':
      return Number.isFinite(value) ? 8 : -1;
    case 'boolean':
    case 'undefined':
      return 5;
    case 'object':
      break;
    default:
      return -1;
  }
  if (value === null) return 5;
  if (depth > MAX_STORED_DEPTH || ++quickNodes > QUICK_NODES) return -1;
  let bytes = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const inner = quickSize(value[i], depth + 1);
      if (inner < 0) return -1;
      bytes += inner + 1;
    }
  } else {
    const proto = Object.getPrototypeOf(value) as object | null;
    if (proto !== Object.prototype && proto !== null) return -1;
    for (const key of Object.keys(value)) {
      const inner = quickSize((value as Record<string, unknown>)[key], depth + 1);
      if (inner < 0) return -1;
      bytes += key.length + 4 + inner;
    }
  }
  if (depth > 0 && bytes >= SHARED_VALUE_MIN) quickLong = true;
  return bytes;
}

/** {@link quickSize} from the top of a value, and whether it holds anything a value table could share. */
function quickMeasure(root: unknown): { bytes: number; long: boolean } {
  const bytes = quickBytes(root);
  return { bytes, long: quickLong };
}

/** {@link quickSize} from the top of a value; {@link quickLong} and {@link quickLongString} tell what it holds. */
function quickBytes(root: unknown): number {
  quickNodes = 0;
  quickLong = false;
  quickLongString = false;
  return quickSize(root, 0);
}

/** The path and length of the longest string in a value, to say what made it too large. */
function longestString(root: unknown, what: string): { path: string; length: number } | null {
  let best: { path: string; length: number } | null = null;
  const seen = new Set<object>();
  const visit = (value: unknown, path: string, depth: number): void => {
    if (typeof value === 'string') {
      if (best === null || value.length > best.length) best = { path, length: value.length };
      return;
    }
    if (value === null || typeof value !== 'object' || seen.has(value) || depth > MAX_STORED_DEPTH) return;
    seen.add(value);
    if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${path}[${i}]`, depth + 1));
    else for (const key of Object.keys(value)) visit((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
  };
  visit(root, what, 0);
  return best;
}

function tooLarge(root: unknown, what: string, bytes: number | null, limit: number): StoreError {
  const longest = longestString(root, what);
  const largest = longest !== null && longest.length >= SHARED_VALUE_MIN ? `; the largest part is ${shortPath(longest.path)} (${size(longest.length)})` : '';
  const measured = bytes === null ? 'is larger than JavaScript can serialize' : `takes ${size(bytes)}`;
  return new StoreError(`${what} ${measured}; a stored value may take at most ${size(limit)}${largest}. Keep large data (files, documents) outside the run and store a reference to it`, {
    code: 'value_too_large',
  });
}

/** Serializes and measures; a value over `limit` bytes is a `value_too_large` error naming its largest part. */
function stringifyWithin(encoded: unknown, original: unknown, what: string, limit: number): string {
  let text: string;
  try {
    text = JSON.stringify(encoded) ?? 'null';
  } catch (cause) {
    if (cause instanceof RangeError) throw tooLarge(original, what, null, limit);
    throw new StoreError(`${what} cannot be serialized: ${(cause as Error).message}`, { code: 'store_encoding', cause });
  }
  // A string is at most 3 bytes per UTF-16 unit; only a text that could be over the limit is measured.
  if (text.length * 3 > limit) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > limit) throw tooLarge(original, what, bytes, limit);
  }
  return text;
}

/**
 * Checks that a value can be stored: JSON only (its key path named in a `not_json` error) and at
 * most {@link MAX_STORED_DEPTH} levels deep (`value_too_large`).
 */
export function assertStorable(value: unknown, what: string): void {
  census(value, what);
}

/**
 * {@link assertStorable}, returning about how many bytes the value's JSON takes: strings and keys
 * are counted without escapes and numbers as 8, so the JSON may take up to 6 times as many UTF-8
 * bytes (a control character is 6 bytes escaped), never more.
 */
export function storableSize(value: unknown, what: string): number {
  const quick = quickMeasure(value).bytes;
  return quick >= 0 ? quick : census(value, what).bytes;
}

/**
 * Serializes a JSON value for the store (a run's snapshot, an event, a journal entry), storing each
 * long value once: when a string of {@link SHARED_VALUE_MIN}+ characters, or an object about that
 * large, appears more than once (a reply that is also the next request, the last result and a
 * state value), the text is `{"$switchboard":"values/1","values":[…],"value":…}` and every
 * occurrence is `{"$ref":i}` (an object whose only key is `$ref` or `$obj` is written as
 * `{"$obj":{…}}`). {@link decodeStored} gives back an equal value. A value that is not JSON is a
 * `not_json` error naming its key path; one over `limit` bytes (after sharing) `value_too_large`.
 */
export function encodeStored(root: unknown, what: string, limit: number = MAX_STORED_BYTES): string {
  // Most values hold no long string and no large object: plain JSON, known after one quick walk.
  const plain = encodePlainStored(root, what, limit);
  if (plain !== null) return plain;
  // A value whose own top level looks like the table format is written in it, so it reads back as itself.
  const clashes = typeof root === 'object' && root !== null && !Array.isArray(root) && FORMAT_KEY in root;
  const found = census(root, what);
  if (!found.repeated && !clashes) return stringifyWithin(root, root, what, limit);
  const values: unknown[] = [];
  const refs = new Map<unknown, number>();
  const shared = (value: unknown): boolean => {
    if (typeof value === 'string') return value.length >= SHARED_VALUE_MIN && (found.strings.get(value) ?? 0) > 1;
    const entry = typeof value === 'object' && value !== null ? found.objects.get(value) : undefined;
    return entry !== undefined && entry.count > 1 && entry.bytes >= SHARED_VALUE_MIN;
  };
  const encode = (value: unknown): unknown => {
    if (shared(value)) {
      let index = refs.get(value);
      if (index === undefined) {
        index = values.length;
        refs.set(value, index);
        values.push(null);
        values[index] = typeof value === 'string' ? value : copy(value as object);
      }
      return { [REF]: index };
    }
    return value !== null && typeof value === 'object' ? copy(value) : value;
  };
  const copy = (value: object): unknown => {
    if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : encode(v)));
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = encode(v);
    }
    const keys = Object.keys(out);
    return keys.length === 1 && (keys[0] === REF || keys[0] === LITERAL) ? { [LITERAL]: out } : out;
  };
  const body = encode(root);
  return stringifyWithin({ [FORMAT_KEY]: TABLE_FORMAT, values, value: body }, root, what, limit);
}

/**
 * {@link encodeStored} for a value it writes as plain JSON (JSON only, no string of
 * {@link SHARED_VALUE_MIN}+ characters, no object about that large inside it, not looking like the
 * table format); null for any other value, which needs the full encoder. Such texts joined as a
 * JSON list are what {@link encodeStored} writes for the list.
 */
export function encodePlainStored(root: unknown, what: string, limit: number = MAX_STORED_BYTES): string | null {
  const clashes = typeof root === 'object' && root !== null && !Array.isArray(root) && FORMAT_KEY in root;
  if (clashes) return null;
  const quick = quickMeasure(root);
  return quick.bytes >= 0 && !quick.long ? stringifyWithin(root, root, what, limit) : null;
}

/**
 * What {@link encodeStored} writes for `root` when that is plain JSON, for a value holding no
 * string long enough for its value table (objects may be large: a run's path, its state): the
 * value's JSON when no large object appears in it twice; null otherwise (a long string, a shared
 * object, or a value the quick walk leaves to the census), which needs the full encoder. Such a text
 * stands on its own: joined with others, nothing in it could be shared with them but long strings,
 * which it has none of.
 */
export function encodeUnsharedStored(root: unknown, what: string, limit: number = MAX_STORED_BYTES): string | null {
  const clashes = typeof root === 'object' && root !== null && !Array.isArray(root) && FORMAT_KEY in root;
  if (clashes || quickBytes(root) < 0 || quickLongString) return null;
  if (quickLong && census(root, what).repeated) return null;
  return stringifyWithin(root, root, what, limit);
}

/**
 * The byte count {@link storableSize} gives from its quick walk, or -1 when only the census can
 * measure the value (or name what is wrong with it). With `from`, `value` is an array and the count
 * is that of `value.slice(from)` (the items a list grew by), taken without the copy.
 */
export function quickStoredSize(value: unknown, from?: number): number {
  if (from === undefined) return quickBytes(value);
  quickNodes = 1;
  quickLong = false;
  quickLongString = false;
  const items = value as readonly unknown[];
  let bytes = 2;
  for (let i = from; i < items.length; i++) {
    const inner = quickSize(items[i], 1);
    if (inner < 0) return -1;
    bytes += inner + 1;
  }
  return bytes;
}

/** Parses a value written by {@link encodeStored} (or plain JSON written before it existed). */
export function decodeStored(text: string): unknown {
  const parsed = JSON.parse(text) as unknown;
  if (typeof parsed !== 'object' || parsed === null || (parsed as Record<string, unknown>)[FORMAT_KEY] !== TABLE_FORMAT) return parsed;
  const { values, value } = parsed as { values: unknown[]; value: unknown };
  const decoded = new Map<number, unknown>();
  const decoding = new Set<number>();
  const ref = (index: unknown): unknown => {
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= values.length || decoding.has(index)) {
      throw new StoreError(`stored value refers to table entry ${String(index)}, which its table does not hold (the row was changed outside Switchboard)`, {
        code: 'store_corrupt',
      });
    }
    if (!decoded.has(index)) {
      decoding.add(index);
      decoded.set(index, decode(values[index]));
      decoding.delete(index);
    }
    return decoded.get(index);
  };
  const decode = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(decode);
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === REF) return ref((value as Record<string, unknown>)[REF]);
    const fields = keys.length === 1 && keys[0] === LITERAL ? ((value as Record<string, unknown>)[LITERAL] as Record<string, unknown>) : (value as Record<string, unknown>);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(fields)) out[key] = decode(fields[key]);
    return out;
  };
  if (!Array.isArray(values)) throw new StoreError('stored value has a value table that is not a list', { code: 'store_corrupt' });
  return decode(value);
}
