/**
 * Sets `key` of `record` as an own property, even `__proto__` (a state read from a file, a graph's
 * name), which plain assignment would take as the object's prototype and JSON would then leave out.
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}
