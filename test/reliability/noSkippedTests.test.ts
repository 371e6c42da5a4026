import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every .ts file under test/, recursively. */
function testSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? testSources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the test suite itself', () => {
  it('skips nothing but the Redis tests on a machine without redis-server: every other test runs anywhere (PostgreSQL and Chromium come from npm when none is installed)', () => {
    // Built from parts so this file does not match itself.
    const skipping = new RegExp(['\\.(skip|skipIf|runIf|todo)\\s*\\(', '\\b(ctx|context|t)\\.skip\\s*\\('].join('|'));
    const offenders = testSources('test').flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        // The one exception: the queue tests skip when no redis-server is installed (no npm package ships one), saying how to install it.
        .flatMap((line, i) => (skipping.test(line) && !/\.skipIf\(REDIS_MISSING !== null\)/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offenders).toEqual([]);
  });
});
