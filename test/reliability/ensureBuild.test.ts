import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { buildIsFresh } from '../support/ensureBuild.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A package layout with one source file and a build, each written at the given time (seconds). */
function layout(times: { source: number; build: number }): string {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-build-'));
  dirs.push(root);
  const write = (path: string, at: number) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), '');
    // The file and every folder above it inside the package: a folder's time is when an entry was added or removed.
    for (let p = join(root, path); p !== root; p = dirname(p)) utimesSync(p, at, at);
  };
  write('src/graph/deep/node.ts', times.source);
  write('dist/bundle/cli.js', times.build);
  write('dist/bundle/meta.json', times.build);
  return root;
}

describe('the build the tests’ child processes run', () => {
  it('is fresh only when built after every change to what it is built from', () => {
    expect(buildIsFresh(layout({ source: 1_000, build: 2_000 }))).toBe(true);
    // A change deep in src/ after the build: stale.
    expect(buildIsFresh(layout({ source: 3_000, build: 2_000 }))).toBe(false);
    // A build cut short leaves no meta.json or no CLI: stale.
    const cut = layout({ source: 1_000, build: 2_000 });
    rmSync(join(cut, 'dist/bundle/meta.json'));
    expect(buildIsFresh(cut)).toBe(false);
    const noCli = layout({ source: 1_000, build: 2_000 });
    rmSync(join(noCli, 'dist/bundle/cli.js'));
    expect(buildIsFresh(noCli)).toBe(false);
    // A new file added to machines/ or a changed package.json after the build: stale.
    const added = layout({ source: 1_000, build: 2_000 });
    mkdirSync(join(added, 'machines'));
    writeFileSync(join(added, 'machines/new.ts'), '');
    utimesSync(join(added, 'machines/new.ts'), 1_500, 1_500);
    utimesSync(join(added, 'machines'), 2_500, 2_500);
    expect(buildIsFresh(added)).toBe(false);
    const pkg = layout({ source: 1_000, build: 2_000 });
    writeFileSync(join(pkg, 'package.json'), '{}');
    expect(buildIsFresh(pkg)).toBe(false);
  });

  it('is what the child processes of this run use: a fresh build, or the sources when asked', () => {
    const options = process.env.NODE_OPTIONS ?? '';
    if (process.env.SWITCHBOARD_TEST_FROM_SOURCE === '1') {
      expect(options).toContain('--conditions=switchboard-source');
    } else {
      // globalSetup built it if it was stale; children inherit no source condition, so they load dist/.
      expect(options).not.toContain('switchboard-source');
      expect(buildIsFresh(fileURLToPath(new URL('../..', import.meta.url)))).toBe(true);
    }
  });
});
