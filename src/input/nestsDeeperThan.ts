/**
 * True when `value` nests objects and arrays more than `limit` levels deep (the value itself is
 * level 1). Walks without recursion, so a value nested far deeper than the stack allows (a JSON body
 * of `[[[[…]]]]`) is measured before any recursive check or schema sees it; stops at the first
 * container past the limit.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return false;
}
