import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The package as a user gets it: `npm pack` (which builds dist/ through `prepare`), installed into
// an empty folder, used from plain Node and from a type-checked TypeScript consumer. The install is
// offline: the package's dependencies are linked from this checkout's node_modules, and npm resolves
// the tarball against them. It packs a copy of the checkout: `prepare` starts by removing dist/,
// which the other tests' child processes are running meanwhile (see test/support/ensureBuild.ts).

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; dependencies: Record<string, string> };

let dir: string;
/** The copy of the checkout that is packed (and built by `prepare`). */
let source: string;
let consumer: string;
let files: string[];
/** A plain environment: no source condition (the tests' NODE_OPTIONS), no keys. */
const env = { ...process.env, NODE_OPTIONS: '', OPENAI_API_KEY: '', SWITCHBOARD_DATABASE_URL: '' };

/** Runs `node args` in the consumer folder; resolves with its output. */
const node = (args: string[], extra: Record<string, string> = {}) => run(process.execPath, args, { cwd: consumer, env: { ...env, ...extra }, maxBuffer: 16 * 1024 * 1024 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-pack-'));
  source = join(dir, 'source');
  for (const entry of ['package.json', 'package-lock.json', 'README.md', 'LICENSE', 'tsconfig.json', 'tsconfig.build.json', 'bin', 'src', 'machines', 'specialists', 'web', 'scripts']) {
    if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(source, entry), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: source, env, maxBuffer: 64 * 1024 * 1024 });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = info!.files.map((f) => f.path);
  consumer = join(dir, 'consumer');
  mkdirSync(join(consumer, 'node_modules'), { recursive: true });
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const link = (dep: string) => {
    mkdirSync(dirname(join(consumer, 'node_modules', dep)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dep), join(consumer, 'node_modules', dep));
  };
  Object.keys(manifest.dependencies).forEach(link);
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', join(dir, info!.filename)], { cwd: consumer, env });
  // What the TypeScript consumer compiles with (npm removes links it does not need, so they come after).
  ['typescript', '@types/node'].forEach(link);
}, 900_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('ships compiled JS with declarations and source maps for both entries, and the bin', () => {
    for (const entry of ['dist/src/index', 'dist/src/engine', 'dist/src/testing/index']) {
      for (const ext of ['.js', '.js.map', '.d.ts', '.d.ts.map']) expect(files).toContain(`${entry}${ext}`);
    }
    // The runtime the exports and the bin load: the bundle, with source maps; not the build's list of what each file holds.
    for (const entry of ['index', 'engine', 'testing', 'cli', 'machines']) for (const ext of ['.js', '.js.map']) expect(files).toContain(`dist/bundle/${entry}${ext}`);
    expect(files).not.toContain('dist/bundle/meta.json');
    expect(files).toContain('bin/switchboard.js');
    expect(files).toContain('dist/machines/index.js');
    expect(files).toContain('dist/specialists/report/salesReportServerMain.js');
    expect(files).toContain('dist/web/index.html');
    expect(files.some((f) => f.startsWith('test/') || f.startsWith('bench/'))).toBe(false);
  });

  it('runs a graph from plain Node ESM, with the testing entry', async () => {
    const script = `
      const { StateGraph, END } = await import('switchboard');
      const { ScriptedModel } = await import('switchboard/testing');
      const graph = new StateGraph({ name: 'packed', maxSteps: 5 })
        .addNode('greet', (_ctx, request) => 'hello ' + String(request.input))
        .addNode('shout', (_ctx, request) => String(request.input).toUpperCase())
        .start('greet').addEdge('greet', 'shout').addEdge('shout', END);
      const run = await graph.run('packed world');
      // The engine entry holds the same classes (one module instance), without the server or the Workflow builder.
      const engine = await import('switchboard/engine');
      const whole = await import('switchboard');
      const engineRun = await new engine.StateGraph({ name: 'engine' }).addNode('a', () => 'engine ok').start('a').run('x');
      const same = engine.StateGraph === StateGraph && engine.SwitchboardError === whole.SwitchboardError && engine.Coordinator === whole.Coordinator;
      const left = ['createServer', 'startServer', 'Workflow', 'analyzeTransitions'].filter((name) => name in engine);
      // The JSONL transition recorder's writer thread starts from the compiled package (no warning that it fell back).
      const warnings = [];
      process.on('warning', (warning) => warnings.push(warning.code ?? warning.message));
      const { mkdtempSync, readFileSync } = await import('node:fs');
      const file = mkdtempSync((await import('node:os')).tmpdir() + '/sb-pack-jsonl-') + '/t.jsonl';
      const kept = new whole.TransitionRecorder();
      await graph.run('recorded', { recorders: [new whole.JsonlTransitionRecorder(file), kept] });
      const same_lines = readFileSync(file, 'utf8') === kept.records.map((r) => JSON.stringify(r) + '\\n').join('');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const jsonl = { lines: kept.records.length, same_lines, warnings };
      console.log(JSON.stringify({ status: run.status, path: run.path, out: run.outputText, scripted: typeof ScriptedModel, engine: engineRun.outputText, same, left, jsonl }));`;
    const { stdout } = await node(['--input-type=module', '-e', script]);
    expect(JSON.parse(stdout)).toEqual({ status: 'completed', path: ['greet', 'shout'], out: 'HELLO PACKED WORLD', scripted: 'function', engine: 'engine ok', same: true, left: [], jsonl: { lines: 3, same_lines: true, warnings: [] } });
    const resolved = await node(['--input-type=module', '-e', "console.log(import.meta.resolve('switchboard'))"]);
    expect(resolved.stdout.trim()).toMatch(/node_modules\/switchboard\/dist\/bundle\/index\.js$/);
  });

  it('type-checks a TypeScript consumer against the shipped declarations, and catches a wrong use', async () => {
    const tsc = join(consumer, 'node_modules', 'typescript', 'bin', 'tsc');
    const options = { module: 'nodenext', moduleResolution: 'nodenext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] };
    writeFileSync(
      join(consumer, 'good.ts'),
      `import { StateGraph, type WorkflowRun } from 'switchboard';
import { StateGraph as EngineGraph, type WorkflowRun as EngineRun } from 'switchboard/engine';
import { ScriptedModel } from 'switchboard/testing';
const engineRun: EngineRun = await new EngineGraph({ name: 'engine' }).addNode('a', () => 'done').start('a').run('x');
const graph = new StateGraph({ name: 'typed' }).addNode('a', () => 'done').start('a');
const run: WorkflowRun = await graph.run('x');
const text: string | null = run.outputText;
const model = new ScriptedModel([{ text: 'hi' }]);
export { text, model, engineRun };
`,
    );
    writeFileSync(join(consumer, 'bad.ts'), `import { StateGraph } from 'switchboard';\nconst steps: string = new StateGraph({ name: 'typed' }).addNode('a', () => 'done');\nexport { steps };\n`);
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['good.ts'] }));
    writeFileSync(join(consumer, 'tsconfig.bad.json'), JSON.stringify({ compilerOptions: options, files: ['bad.ts'] }));
    const [good, bad] = await Promise.all([node([tsc, '-p', 'tsconfig.json']).catch((e: { stdout: string }) => e), node([tsc, '-p', 'tsconfig.bad.json']).catch((e: { stdout: string }) => e)]);
    expect(good.stdout).toBe('');
    expect(bad.stdout).toMatch(/bad\.ts\(2,7\): error TS2322: Type 'StateGraph<.*>' is not assignable to type 'string'/);
  }, 600_000);

  it('runs the installed CLI from compiled JS, importing only what the command needs', async () => {
    // Records every module the process loads: ES modules (and CommonJS ones imported from them)
    // through the load hook, and at exit every CommonJS module in the require cache (those that
    // CommonJS code or createRequire loaded, which the hook does not see).
    writeFileSync(
      join(dir, 'loadHooks.mjs'),
      `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.LOADS_FILE, url + '\\n');
  return next(url, context);
}
`,
    );
    const hook = join(dir, 'logLoads.mjs');
    writeFileSync(
      hook,
      `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
register(${JSON.stringify(pathToFileURL(join(dir, 'loadHooks.mjs')).href)});
const { cache } = createRequire(import.meta.url);
process.on('exit', () => appendFileSync(process.env.LOADS_FILE, Object.keys(cache).map((file) => pathToFileURL(file).href + '\\n').join('')));
`,
    );
    const bin = join(consumer, 'node_modules', '.bin', 'switchboard');
    // The runtime is bundled (dist/bundle/): a bundle file loaded stands for the compiled modules it
    // holds (the build's meta.json lists them), so the checks below name dist/'s modules as before.
    const holds = JSON.parse(readFileSync(join(source, 'dist', 'bundle', 'meta.json'), 'utf8')) as Record<string, string[]>;
    const unbundled = (url: string) => {
      const [, pkg, file] = /^(.*\/node_modules\/switchboard\/)dist\/bundle\/(.+\.js)$/.exec(url) ?? [];
      if (pkg === undefined || file === undefined) return [url];
      expect(holds[file], `${file} is not in the build's dist/bundle/meta.json`).toBeDefined();
      return holds[file]!.map((module) => `${pkg}${module}`);
    };
    const loads = (name: string) => readFileSync(join(dir, name), 'utf8').trim().split('\n').flatMap(unbundled);

    const version = await node(['--import', hook, bin, '--version'], { LOADS_FILE: join(dir, 'version.loads') });
    expect(version.stdout.trim()).toBe(manifest.version);
    const versionLoads = loads('version.loads');
    expect(versionLoads.filter((u) => /\/(xstate|zod|openai|better-sqlite3|tsx|hono)\//.test(u))).toEqual([]);
    expect(versionLoads.filter((u) => u.endsWith('.ts'))).toEqual([]);

    const db = join(dir, 'runs.db');
    const hello = await node(['--import', hook, bin, '--db', db, 'run', 'hello', '--json'], { LOADS_FILE: join(dir, 'run.loads') });
    expect(JSON.parse(hello.stdout)).toMatchObject({ status: 'completed', path: ['ingest', 'classify', 'draft', 'review', 'finish'] });
    const runLoads = loads('run.loads');
    expect(runLoads.filter((u) => u.endsWith('.ts') || /\/(tsx|@modelcontextprotocol|@statelyai)\//.test(u))).toEqual([]);
    // The offline model and the SQLite store: no OpenAI SDK, no PostgreSQL driver, no OpenTelemetry.
    const packages = (urls: string[]) => [...new Set(urls.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1]).filter((name) => name !== undefined))];
    expect(packages(runLoads).filter((name) => /^(openai|pg|pg-.*|@opentelemetry\/.*)$/.test(name))).toEqual([]);
    // Offline `run` never touches the distributed mode's queue: no BullMQ, no Redis client.
    expect(packages(runLoads).filter((name) => /^(bullmq|ioredis|@ioredis\/.*)$/.test(name))).toEqual([]);
    // A greeting has only known words: the spelling index (MiniSearch) is built, and loaded, on the first fuzzy lookup.
    expect(packages(runLoads)).not.toContain('minisearch');
    expect(runLoads.filter((u) => /\/switchboard\/dist\/src\/queue\/(?!queueFromEnv\.js$|QueueError\.js$)/.test(u))).toEqual([]);
    expect(packages(runLoads)).toEqual(expect.arrayContaining(['xstate', 'zod', 'better-sqlite3', 'commander']));
    expect(runLoads.some((u) => u.includes('/node_modules/switchboard/dist/machines/index.js'))).toBe(true);
    // The graphs import the engine entry, not the whole package: no workbench server (hono and its
    // node adapter, the server modules but the graphs module's Scenario shape), no typed Workflow
    // builder (its key constants and which machine is a workflow, which the drawings read, aside), no transition analytics.
    expect(packages(runLoads).filter((name) => /^(hono|@hono\/.*)$/.test(name))).toEqual([]);
    expect(runLoads.filter((u) => /\/switchboard\/dist\/src\/(server\/(?!Scenario\.js$)|workflow\/(?!(?:workflowKeys|isGateNode|compiledOf)\.js$)|analytics\/|index\.js$)/.test(u))).toEqual([]);
    expect(runLoads.filter((u) => /^node:(http|http2|net)$/.test(u))).toEqual([]);
    // Each specialist's node modules load when its node first runs: a greeting loads only the
    // graphs' shapes, routers and shared state helpers (no retrieval, order tools, report client or vision).
    const SPECIALIST_NODES = /\/switchboard\/dist\/specialists\/(index\.js$|vision\/|report\/(?!reportGraph\.js$)|policy\/(retrieveNode|requeryNode|policyDraftNode|policyReviewNode|searchPolicies|draftPolicyAnswer)\.js$|orders\/(toolPlanNode|toolExecuteNode|createOrderTools|planOrderStep|Order)\.js$)/;
    expect(runLoads.filter((u) => SPECIALIST_NODES.test(u))).toEqual([]);

    // The report server is spawned from the compiled module (no TypeScript of the specialists ships).
    const report = await node([bin, '--db', db, 'run', 'Query the September 2026 sales report and tell me revenue and order volume.', '--json']);
    const reportRun = JSON.parse(report.stdout) as { status: string; path: string[]; outputText: string };
    expect(reportRun.path).toContain('report_mcp');
    expect(reportRun.outputText).toContain('1,286,000');
  }, 600_000);
});
