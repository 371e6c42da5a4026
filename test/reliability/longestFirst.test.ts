import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LONGEST_FILES } from '../support/LongestFirstSequencer.js';

describe('the files the test run starts first', () => {
  it('all exist (a renamed or removed suite would drop out of the list without a word)', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    expect(LONGEST_FILES.filter((file) => !existsSync(`${root}${file}`))).toEqual([]);
    expect(new Set(LONGEST_FILES).size).toBe(LONGEST_FILES.length);
  });
});
