import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Workflow } from '../graph/Workflow.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { ScenarioList, type Scenario } from '../server/Scenario.js';
import { formatZodError } from '../errors/formatZodError.js';

/** The module that lists the project's graphs when none is named: `machines/index.ts` of this package. */
export const DEFAULT_GRAPHS_MODULE = new URL('../../machines/index.ts', import.meta.url);

/** What a graphs module provides: its graphs, its scenarios (empty when it exports none) and where it is. */
export interface GraphsModule {
  graphs: Workflow[];
  scenarios: Scenario[];
  url: URL;
}

/**
 * Loads a module exporting `graphs: Workflow[]` and optionally `scenarios: Scenario[]` (`--graphs`,
 * else `SWITCHBOARD_GRAPHS`, else the project's `machines/index.ts`). Loaded at run time so the
 * library never depends on the concrete machines.
 */
export async function loadGraphsModule(modulePath?: string): Promise<GraphsModule> {
  const chosen = modulePath ?? process.env.SWITCHBOARD_GRAPHS;
  const url = chosen === undefined || chosen === '' ? DEFAULT_GRAPHS_MODULE : pathToFileURL(resolve(chosen));
  if (url.protocol === 'file:' && !existsSync(url)) {
    throw new GraphDefinitionError(`graphs module not found: ${url.pathname}; pass --graphs <file> exporting \`graphs\``);
  }
  const loaded = (await import(url.href)) as { graphs?: unknown; scenarios?: unknown };
  if (!Array.isArray(loaded.graphs)) {
    throw new GraphDefinitionError(`${url.pathname} must export \`graphs\`: an array of StateGraph / SequentialWorkflow`);
  }
  const scenarios = ScenarioList.safeParse(loaded.scenarios ?? []);
  if (!scenarios.success) {
    throw new GraphDefinitionError(`${url.pathname} exports \`scenarios\` that do not match { id, title, message, graph?, image? }[]: ${formatZodError(scenarios.error)}`);
  }
  return { graphs: loaded.graphs as Workflow[], scenarios: scenarios.data, url };
}

/** Loads the graphs a CLI command works with (see {@link loadGraphsModule}). */
export async function loadGraphs(modulePath?: string): Promise<Workflow[]> {
  return (await loadGraphsModule(modulePath)).graphs;
}
