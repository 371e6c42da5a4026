import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What `npm run build` compiles or copies into dist/, and what decides how it does. */
const INPUTS = ['src', 'machines', 'specialists', 'web', 'scripts/build.mjs', 'scripts/bundleRuntime.mjs', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

/** The build's last output: written after the bundle, so a build cut short leaves it old or missing. */
const OUTPUT = 'dist/bundle/meta.json';

/** The latest modification time under `path` (a file or a directory, walked). */
function newest(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/** Whether dist/ under `root` was built after the last change to any file it is built from. */
export function buildIsFresh(root: string): boolean {
  const built = statSync(join(root, OUTPUT), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return built > 0 && existsSync(join(root, 'dist/bundle/cli.js')) && INPUTS.every((input) => newest(join(root, input)) < built);
}

/**
 * Makes sure dist/ is the build of the sources as they are: builds (`node scripts/build.mjs`,
 * about 15 s) when dist/ is missing or any input changed after it was built; otherwise does
 * nothing (a fresh clone's `npm ci` has built it). Returns whether it built. Throws with the
 * build's output when the build fails.
 *
 * The tests' child processes (the CLI, killed and recovered runs, queue workers) run this build, as
 * an installed package does; the test files themselves run the TypeScript sources.
 */
export function ensureBuild(root: string): boolean {
  if (buildIsFresh(root)) return false;
  // vitest.config.ts has taken the source condition out of NODE_OPTIONS, and build.mjs runs its own child without it.
  const result = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`npm run build failed (exit ${String(result.status ?? result.signal)}); the tests' child processes run the build:\n${result.stdout}${result.stderr}`);
  }
  return true;
}
