import { SwitchboardError } from '../errors/SwitchboardError.js';

function kindOf(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : String(value);
    case 'undefined':
      return null;
    case 'object': {
      if (value === null || Array.isArray(value)) return null;
      const proto = Object.getPrototypeOf(value);
      if (proto === Object.prototype || proto === null) return null;
      return `a ${(value as object).constructor?.name ?? 'class instance'}`;
    }
    default:
      return `a ${typeof value}`;
  }
}

/** Where a value stops being JSON: the key path, and what is there (or that it is a cycle). */
export interface NotJsonPlace {
  at: string;
  /** What JSON cannot represent there (`a Date`, `NaN`, `a function`), or null for a cycle. */
  what: string | null;
}

/**
 * The first key path under `path` whose value would not survive `JSON.stringify` → `JSON.parse`
 * unchanged (a Map, Set, Date, class instance, function, bigint, non-finite number or a cycle), or
 * null when the whole value is JSON. The check every stored value passes (see {@link assertJson}).
 */
export function findNotJson(value: unknown, path: string): NotJsonPlace | null {
  const bad = kindOf(value);
  if (bad !== null) return { at: path, what: bad };
  if (value === null || typeof value !== 'object') return null;
  const seen = new Set<object>();
  const visit = (v: unknown, at: string): NotJsonPlace | null => {
    const kind = kindOf(v);
    if (kind !== null) return { at, what: kind };
    if (v === null || typeof v !== 'object') return null;
    if (seen.has(v)) return { at, what: null };
    seen.add(v);
    let found: NotJsonPlace | null = null;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length && found === null; i++) found = visit(v[i], `${at}[${i}]`);
    } else {
      for (const key of Object.keys(v)) if ((found = visit((v as Record<string, unknown>)[key], `${at}.${key}`)) !== null) break;
    }
    seen.delete(v);
    return found;
  };
  return visit(value, path);
}

/**
 * Throws a `not_json` error naming the first key path whose value would not survive
 * `JSON.stringify` → `JSON.parse` unchanged (a Map, Set, Date, class instance, function, bigint,
 * non-finite number or a cycle).
 */
export function assertJson(value: unknown, path: string): void {
  const place = findNotJson(value, path);
  if (place === null) return;
  if (place.what === null) throw new SwitchboardError(`${place.at} refers back to itself (a cycle); JSON cannot represent cycles`, { code: 'not_json' });
  throw new SwitchboardError(
    `${place.at} holds ${place.what}, which JSON cannot represent; store plain objects, arrays, strings, finite numbers, booleans or null there`,
    { code: 'not_json', fault: 'user' },
  );
}

/**
 * Serializes a persisted machine snapshot (`actor.getPersistedSnapshot()`) to JSON, failing with an
 * error that names the offending key instead of silently turning a Map into `{}`.
 */
export function serializeSnapshot(snapshot: unknown): string {
  assertJson(snapshot, 'snapshot');
  return JSON.stringify(snapshot);
}
