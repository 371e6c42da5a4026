import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Workflow } from '../graph/Workflow.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';

/** The module that lists the project's graphs when none is named: `machines/index.ts` of this package. */
export const DEFAULT_GRAPHS_MODULE = new URL('../../machines/index.ts', import.meta.url);

/**
 * Loads the graphs a CLI command works with from a module exporting `graphs: Workflow[]`
 * (`--graphs`, else `SWITCHBOARD_GRAPHS`, else the project's `machines/index.ts`). Loaded at run
 * time so the library never depends on the concrete machines.
 */
export async function loadGraphs(modulePath?: string): Promise<Workflow[]> {
  return (await importGraphsModule(modulePath)).graphs;
}

/** Imports the graphs module and checks its `graphs` export; other exports are returned as they are. */
export async function importGraphsModule(modulePath?: string): Promise<{ graphs: Workflow[]; [name: string]: unknown }> {
  const chosen = modulePath ?? process.env.SWITCHBOARD_GRAPHS;
  const url = chosen === undefined || chosen === '' ? DEFAULT_GRAPHS_MODULE : pathToFileURL(resolve(chosen));
  if (url.protocol === 'file:' && !existsSync(url)) {
    throw new GraphDefinitionError(`graphs module not found: ${url.pathname}; pass --graphs <file> exporting \`graphs\``);
  }
  const loaded = (await import(url.href)) as { graphs?: unknown };
  if (!Array.isArray(loaded.graphs)) {
    throw new GraphDefinitionError(`${url.pathname} must export \`graphs\`: an array of StateGraph / SequentialWorkflow`);
  }
  return { ...loaded, graphs: loaded.graphs as Workflow[] };
}
