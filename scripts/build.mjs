// `npm run build` (also run by `prepare` on `npm ci`, `npm install` and `npm pack`): compiles src/,
// machines/ and specialists/ to dist/ with tsc (ES modules, declarations, source maps) and copies
// the files they read at run time (web/ beside dist/src, the knowledge base, datasets and pictures
// beside their modules), so every `new URL('./…', import.meta.url)` finds the same layout as in
// the sources. Plain Node on purpose: it runs before anything else is built.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleRuntime } from './bundleRuntime.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

/** Copies every file under `dir` that is not TypeScript to the same place under dist/. */
function copyAssets(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = join(dir, entry.name);
    if (entry.isDirectory()) copyAssets(file);
    else if (extname(entry.name) !== '.ts' && statSync(file).isFile()) cpSync(file, join(dist, relative(root, file)));
  }
}
for (const dir of ['src', 'machines', 'specialists']) copyAssets(join(root, dir));
cpSync(join(root, 'web'), join(dist, 'web'), { recursive: true, filter: (file) => !/tsconfig\.json$|\.d\.ts$/.test(file) });

// The runtime bundle (dist/bundle/), which `exports` and the bin point at: see bundleRuntime.mjs.
await bundleRuntime(root);

// The customer-service understanding, trained once here by the compiled code from the shipped data,
// so the compiled CLI does not train it at every start. Run without the "switchboard-source"
// condition, so the compiled modules import the compiled library.
const train = `
  const { writeFileSync } = await import('node:fs');
  const { defaultUnderstanding, TRAINED_UNDERSTANDING_FILE } = await import(${JSON.stringify(new URL('../dist/machines/customerService/understanding/defaultUnderstanding.js', import.meta.url).href)});
  writeFileSync(TRAINED_UNDERSTANDING_FILE, JSON.stringify(defaultUnderstanding().toJSON()));`;
const env = { ...process.env, NODE_OPTIONS: (process.env.NODE_OPTIONS ?? '').replace(/--conditions=switchboard-source/g, '') };
const trained = spawnSync(process.execPath, ['--input-type=module', '-e', train], { stdio: 'inherit', env });
if (trained.status !== 0) process.exit(trained.status ?? 1);
