/** Where a refused value sits, and why JSON cannot hold it. */
export interface NotJson {
  /** The path inside the value (`""` for the value itself, else like `.items[2].at`). */
  at: string;
  /** What is there: "a Date", "NaN", "undefined in an array", "a cycle", … */
  what: string;
}

/** Thrown inside {@link toStateValue}; the caller turns it into its own typed error. */
export class NotJsonValue extends Error {
  constructor(readonly detail: NotJson) {
    super(`${detail.at || 'the value'} holds ${detail.what}`);
  }
}

function describe(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? `a ${name}` : 'a class instance';
}

/**
 * Checks that `value` is JSON — what `JSON.stringify` → `JSON.parse` gives back unchanged — and
 * returns a deep copy of it, frozen, so nothing can change it once it is in a run's state (a
 * snapshot already handed out keeps its values). Primitives come back as they are. Object
 * properties that are `undefined` are left out (as JSON leaves them out); anything else that JSON
 * cannot hold throws {@link NotJsonValue}: a Date, Map, Set or other class instance, a function,
 * symbol or bigint, NaN or ±Infinity, `undefined` or a hole in an array, a symbol-keyed property,
 * or a cycle.
 */
export function toStateValue(value: unknown): unknown {
  const open = new Set<object>();
  const copy = (v: unknown, at: string, inArray: boolean, depth = 0): unknown => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v;
      case 'number':
        if (Number.isFinite(v)) return v;
        throw new NotJsonValue({ at, what: String(v) });
      case 'undefined':
        if (inArray) throw new NotJsonValue({ at, what: 'undefined in an array (JSON turns it into null)' });
        return undefined;
      case 'object':
        break;
      default:
        throw new NotJsonValue({ at, what: `a ${typeof v}` });
    }
    if (v === null) return null;
    const proto = Object.getPrototypeOf(v) as unknown;
    const isArray = Array.isArray(v) && proto === Array.prototype;
    if (!isArray && proto !== Object.prototype && proto !== null) throw new NotJsonValue({ at, what: describe(v) });
    if (open.has(v)) throw new NotJsonValue({ at, what: 'a reference back to itself (a cycle)' });
    // Stored values nest at most 1,000 levels (MAX_STORED_DEPTH); deeper would also overflow the stack here.
    if (depth > 1000) throw new NotJsonValue({ at: at.length > 160 ? `${at.slice(0, 80)}…${at.slice(-60)}` : at, what: 'objects nested more than 1000 levels deep (flatten it)' });
    if (Object.getOwnPropertySymbols(v).length > 0) throw new NotJsonValue({ at, what: 'a symbol-keyed property (JSON leaves it out)' });
    open.add(v);
    let out: unknown[] | Record<string, unknown>;
    if (isArray) {
      const list = v as unknown[];
      const items: unknown[] = new Array(list.length);
      for (let i = 0; i < list.length; i++) {
        if (!(i in list)) throw new NotJsonValue({ at: `${at}[${i}]`, what: 'a hole in an array (JSON turns it into null)' });
        items[i] = copy(list[i], `${at}[${i}]`, true, depth + 1);
      }
      out = items;
    } else {
      const record: Record<string, unknown> = {};
      for (const key of Object.keys(v)) {
        const item = copy((v as Record<string, unknown>)[key], `${at}.${key}`, false, depth + 1);
        if (item === undefined) continue;
        // `__proto__` as an own key (JSON.parse makes those) must stay a key, not become the prototype.
        if (key === '__proto__') Object.defineProperty(record, key, { value: item, enumerable: true, writable: true, configurable: true });
        else record[key] = item;
      }
      out = record;
    }
    open.delete(v);
    return Object.freeze(out);
  };
  return copy(value, '', false);
}
