import { statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AS_GRAPH, toRunnableGraph, type RegisteredGraph, type RunnableGraph } from '../graph/RunnableGraph.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { UsageError } from '../errors/UsageError.js';
import { ScenarioList, type Scenario } from '../server/Scenario.js';
import { formatZodError } from '../errors/formatZodError.js';
import { faultNames } from '../input/faultNames.js';
import { MAX_MODEL_NAME_LENGTH } from '../model/ModelCatalog.js';
import { FROM_SOURCE, packageUrl } from './packageUrl.js';

/**
 * The module that lists the project's graphs when none is named: `machines/index` of this package
 * (built into dist/bundle/ when the CLI is, so it shares the CLI's copy of the engine).
 */
export const DEFAULT_GRAPHS_MODULE = FROM_SOURCE ? packageUrl('machines/index.ts') : packageUrl('dist/bundle/machines.js');

/** What a graphs module provides: its graphs, its scenarios, fault and model names (empty when it exports none) and where it is. */
export interface GraphsModule {
  graphs: RunnableGraph[];
  scenarios: Scenario[];
  /** The fault names its graphs understand (`--fault`, scenario `faults`). */
  faults: string[];
  /** The model names a run may choose (`POST /api/runs` `model`), the default first. */
  models: string[];
  url: URL;
}

const TYPESCRIPT_EXTENSIONS = ['.ts', '.mts', '.cts', '.tsx'];
const MODULE_EXTENSIONS = [...TYPESCRIPT_EXTENSIONS, '.js', '.mjs', '.cjs', '.jsx'];

let tsxRegistered = false;

/**
 * Lets the compiled CLI import a TypeScript graphs module: registers tsx's loader once, on first
 * need (run from the sources, tsx is already registered).
 */
async function enableTypeScript(): Promise<void> {
  if (FROM_SOURCE || tsxRegistered) return;
  const { register } = await import('tsx/esm/api');
  register();
  tsxRegistered = true;
}

/** The first line of a message, cut short: what went wrong, never a stack or a code frame. */
function firstLine(text: string, max = 160): string {
  const line = text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** Why importing the module failed, in one line, without the module's text. */
function importFailure(error: unknown): string {
  const e = error as { name?: unknown; code?: unknown; message?: unknown; errors?: Array<{ text?: string; location?: { line?: number; column?: number } | null }> };
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (e?.name === 'TransformError') {
    // esbuild's report: "Transform failed with N error(s):\n<file>:<line>:<column>: ERROR: <what>"
    // (its errors array does not survive the loader thread, so the message is read).
    const first = Array.isArray(e.errors) ? e.errors[0] : undefined;
    const found = /:(\d+):(\d+): ERROR: (.*)$/m.exec(message);
    const at = first?.location ? ` at line ${first.location.line}:${first.location.column}` : found ? ` at line ${found[1]}:${found[2]}` : '';
    return `it does not compile${at}: ${firstLine(first?.text ?? found?.[3] ?? 'syntax error', 120)}`;
  }
  if (error instanceof SyntaxError) return `it is not valid JavaScript or TypeScript (SyntaxError: ${firstLine(message, 120)})`;
  if (e?.code === 'ERR_REQUIRE_CYCLE_MODULE' || e?.code === 'ERR_REQUIRE_ESM') {
    return 'it cannot be loaded as an ES module; name it .mts or put it in a package whose package.json has "type": "module"';
  }
  if (e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND') return `one of its imports is missing (${firstLine(message, 160)})`;
  const name = typeof e?.name === 'string' ? e.name : 'Error';
  return `it threw while loading (${name}: ${firstLine(message)})`;
}

/** Whether a value looks like a `StateGraph` / `SequentialWorkflow` (what the CLI calls on it) or a typed `Workflow` (which gives its graph view). */
function isWorkflow(value: unknown): value is RegisteredGraph {
  const w = value as Partial<RunnableGraph> & { [AS_GRAPH]?: unknown } | null;
  if (typeof w !== 'object' || w === null || typeof w.name !== 'string') return false;
  return typeof w[AS_GRAPH] === 'function' || (typeof w.run === 'function' && typeof w.stream === 'function' && typeof w.toMachine === 'function');
}

/**
 * Loads a module exporting `graphs` (StateGraphs, SequentialWorkflows and typed Workflows) and optionally `scenarios: Scenario[]`,
 * `faults: string[]` and `models: string[]` (`--graphs`, else `SWITCHBOARD_GRAPHS`, else the project's
 * `machines/index.ts`). Loaded at run time so the library never depends on the concrete machines.
 * A path that names no JavaScript or TypeScript module file (empty, not found, not a regular file,
 * another extension) is a `UsageError` (the command line is wrong); a module that does not compile,
 * throws while loading or exports the wrong things is a `GraphDefinitionError`. Either is one line
 * naming the file (and SWITCHBOARD_GRAPHS when the path came from it) and what is wrong; the
 * error's `cause` keeps the original (its stack shows with `--debug`).
 */
export async function loadGraphsModule(modulePath?: string): Promise<GraphsModule> {
  if (modulePath !== undefined && modulePath.trim() === '') {
    throw new UsageError('--graphs: the path is empty; pass a module file exporting `graphs`');
  }
  const chosen = modulePath ?? process.env.SWITCHBOARD_GRAPHS;
  const url = chosen === undefined || chosen === '' ? DEFAULT_GRAPHS_MODULE : pathToFileURL(resolve(chosen));
  const file = fileURLToPath(url);
  // A path from the environment is named as such: a user who passed no --graphs must learn where it came from.
  const fromEnv = modulePath === undefined && chosen !== undefined && chosen !== '';
  const where = `graphs module ${file}${fromEnv ? ' (from SWITCHBOARD_GRAPHS)' : ''}`;
  const fix = fromEnv ? 'set SWITCHBOARD_GRAPHS to a module file exporting `graphs`, or pass --graphs <file>' : 'pass --graphs <file> exporting `graphs`';
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${where}: ${code === 'ENOENT' ? 'not found' : `cannot be read (${code ?? 'error'})`}; ${fix}`, error);
  }
  if (!isFile) throw new UsageError(`${where}: not a regular file; ${fix}`);
  if (!MODULE_EXTENSIONS.includes(extname(file).toLowerCase())) {
    throw new UsageError(`${where}: not a JavaScript or TypeScript module (expected a ${MODULE_EXTENSIONS.join(', ')} file exporting \`graphs\`)`);
  }
  let loaded: { graphs?: unknown; scenarios?: unknown; faults?: unknown; models?: unknown };
  try {
    if (TYPESCRIPT_EXTENSIONS.includes(extname(file).toLowerCase())) await enableTypeScript();
    loaded = (await import(url.href)) as typeof loaded;
  } catch (error) {
    throw new GraphDefinitionError(`${where} cannot be loaded: ${importFailure(error)}`, error);
  }
  if (!Array.isArray(loaded.graphs)) {
    throw new GraphDefinitionError(`${where} must export \`graphs\`: an array of StateGraph / SequentialWorkflow / Workflow`);
  }
  const bad = loaded.graphs.findIndex((g) => !isWorkflow(g));
  if (bad !== -1) throw new GraphDefinitionError(`${where}: graphs[${bad}] is not a StateGraph, SequentialWorkflow or Workflow (it needs a name, run, stream and toMachine)`);
  const faults = loaded.faults ?? [];
  if (!Array.isArray(faults) || !faults.every((f) => typeof f === 'string' && /^[a-z0-9_-]+$/i.test(f))) {
    throw new GraphDefinitionError(`${where} exports \`faults\` that are not a list of fault names (letters, digits, "_" and "-")`);
  }
  const models = loaded.models ?? [];
  if (!Array.isArray(models) || !models.every((m) => typeof m === 'string' && m.trim() !== '' && m.length <= MAX_MODEL_NAME_LENGTH)) {
    throw new GraphDefinitionError(`${where} exports \`models\` that are not a list of model names (non-empty strings of at most ${MAX_MODEL_NAME_LENGTH} characters)`);
  }
  const scenarios = ScenarioList.safeParse(loaded.scenarios ?? []);
  if (!scenarios.success) {
    throw new GraphDefinitionError(`${where} exports \`scenarios\` that do not match { id, title, message, graph?, image?, faults?, toolBudget?, reply?, expectedStatus? }[]: ${formatZodError(scenarios.error)}`);
  }
  const faultCheck = faultNames(faults);
  for (const s of scenarios.data) {
    const checked = faultCheck.safeParse(s.faults ?? []);
    if (!checked.success) throw new GraphDefinitionError(`${where}: scenario "${s.id}": ${formatZodError(checked.error)}`);
  }
  return { graphs: (loaded.graphs as RegisteredGraph[]).map(toRunnableGraph), scenarios: scenarios.data, faults, models, url };
}

/** Loads the graphs a CLI command works with (see {@link loadGraphsModule}). */
export async function loadGraphs(modulePath?: string): Promise<RunnableGraph[]> {
  return (await loadGraphsModule(modulePath)).graphs;
}
