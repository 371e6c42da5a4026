import { z } from 'zod';
import { RUN_MODEL_KEY } from '../graph/modelNode.js';

/**
 * The model a run's agents use, as the JSON shapes of a run carry it (`model`): the name its state
 * holds under `runModel` (`RUN_MODEL_KEY`, which `modelNode` reads and a graph built with a
 * `ModelCatalog` records as the run starts), or null for a run that chose none (a graph without a
 * model choice, or a run that has not reached the node recording it).
 */
export const RunModel = z.string().nullable().describe("The model the run's agents use (its state's `runModel`), null when the graph offers no choice or the run has not recorded it yet (queued, or paused before the node that records it)");

/** The {@link RunModel} of a run's shared state. */
export function modelOf(state: Record<string, unknown> | undefined): string | null {
  const model = state?.[RUN_MODEL_KEY];
  return typeof model === 'string' ? model : null;
}
