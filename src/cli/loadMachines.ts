import { z } from 'zod';
import type { Workflow } from '../graph/Workflow.js';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { importGraphsModule } from './loadGraphs.js';

/** A canned request a graphs module may export under `scenarios`. */
export const CliScenario = z.object({
  id: z.string().min(1),
  title: z.string().min(1),
  graph: z.string().min(1),
  message: z.string().min(1),
  image: z.string().optional(),
  faults: z.array(z.string()).optional(),
  toolBudget: z.number().int().positive().optional(),
  reply: z.string().optional(),
});
/** A canned request a graphs module may export under `scenarios`. */
export type CliScenario = z.infer<typeof CliScenario>;

/** The graphs and scenarios of a graphs module. */
export interface Machines {
  graphs: Workflow[];
  scenarios: CliScenario[];
}

/** Loads `graphs` (required) and `scenarios` (optional) from the graphs module (see `loadGraphs`). */
export async function loadMachines(modulePath?: string): Promise<Machines> {
  const loaded = await importGraphsModule(modulePath);
  const scenarios = z.array(CliScenario).safeParse(loaded.scenarios ?? []);
  if (!scenarios.success) throw new GraphDefinitionError(`the graphs module's \`scenarios\` export is not valid: ${z.prettifyError(scenarios.error)}`);
  return { graphs: loaded.graphs, scenarios: scenarios.data };
}

/** Request metadata for a run: an attached image path, injected faults, a tool budget. */
export function runMetadata(options: { image?: string; faults?: readonly string[]; toolBudget?: number }): Record<string, unknown> | undefined {
  const metadata: Record<string, unknown> = {
    ...(options.image ? { image: { path: options.image } } : {}),
    ...(options.faults?.length ? { faults: [...options.faults] } : {}),
    ...(options.toolBudget !== undefined ? { toolBudget: options.toolBudget } : {}),
  };
  return Object.keys(metadata).length === 0 ? undefined : metadata;
}
