/**
 * `{ ...base, ...extra }` for the engine's hot paths (every event, every streamed token): the same
 * object — `base`'s own enumerable string keys in their order, then `extra`'s, a key both have
 * keeping `base`'s place and taking `extra`'s value — built by copying the keys into a new literal.
 * On Node 20 an object begun with a spread takes each key added after it on a slow path: about
 * 0.5–0.8 µs a key (6 µs for an event's eight envelope fields) against about 0.1 µs for the whole
 * copy (bench/RESULTS.md, "Transition recording"). Symbol keys are not copied: events are JSON.
 */
export function withFields<T extends object, U extends object>(base: T, extra: U): T & U {
  const out: Record<string, unknown> = {};
  copyKeys(out, base as Record<string, unknown>);
  copyKeys(out, extra as Record<string, unknown>);
  return out as T & U;
}

function copyKeys(out: Record<string, unknown>, from: Record<string, unknown>): void {
  for (const key of Object.keys(from)) {
    // An own `__proto__` key stays a plain key, as a spread writes it.
    if (key === '__proto__') Object.defineProperty(out, key, { value: from[key], enumerable: true, writable: true, configurable: true });
    else out[key] = from[key];
  }
}
