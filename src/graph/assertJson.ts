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

/**
 * Throws a `not_json` error naming the first key path whose value would not survive
 * `JSON.stringify` → `JSON.parse` unchanged (a Map, Set, Date, class instance, function, bigint,
 * non-finite number or a cycle).
 */
export function assertJson(value: unknown, path: string): void {
  const seen = new Set<object>();
  const visit = (v: unknown, at: string): void => {
    const bad = kindOf(v);
    if (bad !== null) {
      throw new SwitchboardError(
        `${at} holds ${bad}, which JSON cannot represent; store plain objects, arrays, strings, finite numbers, booleans or null there`,
        { code: 'not_json', fault: 'user' },
      );
    }
    if (v === null || typeof v !== 'object') return;
    if (seen.has(v)) {
      throw new SwitchboardError(`${at} refers back to itself (a cycle); JSON cannot represent cycles`, { code: 'not_json' });
    }
    seen.add(v);
    if (Array.isArray(v)) v.forEach((item, i) => visit(item, `${at}[${i}]`));
    else for (const key of Object.keys(v)) visit((v as Record<string, unknown>)[key], `${at}.${key}`);
    seen.delete(v);
  };
  visit(value, path);
}

/**
 * Serializes a persisted machine snapshot (`actor.getPersistedSnapshot()`) to JSON, failing with an
 * error that names the offending key instead of silently turning a Map into `{}`.
 */
export function serializeSnapshot(snapshot: unknown): string {
  assertJson(snapshot, 'snapshot');
  return JSON.stringify(snapshot);
}
