// The runtime bundle, dist/bundle/: the package's entries, the CLI and the project's graphs as ES
// modules that esbuild joins into a few files, split where the code imports lazily (each
// specialist's nodes, the OpenAI client, the queue, the server, the CLI's commands). Node loads an
// ES module for about 0.4 ms of CPU whatever its size (resolve, read, compile, link), and a
// greeting loaded some 250 of this package's modules. `exports` and the bin point at the bundle,
// so every importer (the CLI, the graphs, a user's code) shares one copy of the engine.
// Dependencies stay external (one copy of zod, xstate … with the user's code too).
// tsc's dist/src, dist/machines and dist/specialists stay: the declarations the types point at,
// the modules the bundle is made of, and the report server's process (spawned from its module).
// esbuild is pinned in devDependencies (tsx, a dependency of the package, requires the same version).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { build } from 'esbuild';

/** The bundle's entries: the package's three exports, the CLI and the default graphs module. */
const ENTRIES = [
  { in: 'dist/src/index.js', out: 'index' },
  { in: 'dist/src/engine.js', out: 'engine' },
  { in: 'dist/src/testing/index.js', out: 'testing' },
  { in: 'dist/src/cli/main.js', out: 'cli' },
  { in: 'dist/machines/index.js', out: 'machines' },
];

/**
 * Keeps `new URL('./file', import.meta.url)` finding the files a module reads beside itself in
 * dist/ (the knowledge base, the trained understanding, package.json): its `import.meta.url` becomes
 * its own place in dist/, reached from the bundle file (every bundle file is directly in
 * dist/bundle/, so `../` from any of them is dist/).
 */
const ownImportMetaUrl = (dist) => ({
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const own = `../${relative(dist, args.path).split(sep).join('/')}`;
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(own)}, import.meta.url).href`), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
});

/**
 * Bundles the compiled modules under `root`/dist into `root`/dist/bundle (with source maps back to
 * the TypeScript sources) and writes dist/bundle/meta.json: which of dist/'s modules each bundle file
 * holds (the pack test reads it to tell what a command loaded; it is not packed).
 */
export async function bundleRuntime(root) {
  const dist = join(root, 'dist');
  const outdir = join(dist, 'bundle');
  const result = await build({
    absWorkingDir: root,
    entryPoints: ENTRIES,
    outdir,
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // The graphs import the package by name: the same copy as the CLI's.
    alias: { 'switchboard/engine': './dist/src/engine.js', 'switchboard/testing': './dist/src/testing/index.js', switchboard: './dist/src/index.js' },
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [ownImportMetaUrl(dist)],
  });
  const holds = Object.entries(result.metafile.outputs)
    .filter(([file]) => file.endsWith('.js'))
    .map(([file, output]) => [relative(outdir, join(root, file)).split(sep).join('/'), Object.keys(output.inputs)]);
  writeFileSync(join(outdir, 'meta.json'), JSON.stringify(Object.fromEntries(holds)));
}
