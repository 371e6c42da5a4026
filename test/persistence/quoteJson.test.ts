import { describe, expect, it } from 'vitest';
import { quoteJson } from '../../src/persistence/quoteJson.js';

describe('quoteJson', () => {
  it('writes every string as JSON.stringify does', () => {
    const strings = ['', 'a', 'e1836d027af09eb5', 'quote " inside', 'back\\slash', 'line\nbreak', 'tab\t', '\u0000\u001f\u007f', 'é ✓ \u2028\u2029', 'pair 😀', 'lone \ud800 high', 'lone \udfff low', '\ud83d'];
    for (let c = 0; c < 0x10000; c += 7) strings.push(`x${String.fromCharCode(c)}y`);
    for (const text of strings) expect(quoteJson(text)).toBe(JSON.stringify(text));
  });
});
